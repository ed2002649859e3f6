#pragma once
// circom's .r1cs (version 1): the constraint system A·w ∘ B·w = C·w.
//
//   section 1 (header): u32 n8 (= 32), r (n8 bytes LE), u32 nWires, u32 nPubOut, u32 nPubIn,
//                       u32 nPrvIn, u64 nLabels, u32 nConstraints
//   section 2 (constraints): per constraint A, B, C, each u32 nTerms then nTerms × (u32 wire,
//                       n8-byte coefficient, plain LE — not Montgomery — and < r)
//   section 3 (wire -> label map): nWires × u64            (optional here)
//   sections 4, 5: PLONK custom gates — rejected (a Groth16 circuit has none)
//
// circom writes section 2 before section 1 and stores negated coefficients (a·b = c is
// A = {a: r-1}, B = {b: 1}, C = {c: r-1}); linear constraints (kept with --O0) have empty A and B.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "zk/curves.hpp"

namespace splitprove::io {

template <class E>
struct Term {
  uint32_t wire;
  typename E::Fr coeff;  // the plain coefficient (Montgomery inside the Field type)
};

// Constraints in compressed-row form: the terms of constraint i's A, B and C are
// terms[offsets[3i + m] .. offsets[3i + m + 1]) for m = 0, 1, 2, in file order.
template <class E>
struct R1cs {
  std::string source;    // file name, for messages
  uint32_t n_wires = 0;  // including wire 0 (the constant 1)
  uint32_t n_pub_out = 0;
  uint32_t n_pub_in = 0;
  uint32_t n_prv_in = 0;
  uint64_t n_labels = 0;
  uint32_t n_constraints = 0;
  std::vector<Term<E>> terms;
  std::vector<uint64_t> offsets;      // 3·n_constraints + 1 entries
  std::vector<uint64_t> wire_labels;  // section 3 when present (else empty)

  uint32_t n_public() const { return n_pub_out + n_pub_in; }
  // m: 0 = A, 1 = B, 2 = C.
  std::span<const Term<E>> lc(size_t constraint, int m) const {
    const size_t k = 3 * constraint + size_t(m);
    return {terms.data() + offsets[k], terms.data() + offsets[k + 1]};
  }
};

template <class E>
R1cs<E> parse_r1cs(std::span<const uint8_t> bytes, const std::string& name);
template <class E>
R1cs<E> read_r1cs(const std::string& path);

// Writes a version-1 .r1cs the way circom lays it out (sections 2, 1, then 3 if labels exist).
template <class E>
std::vector<uint8_t> encode_r1cs(const R1cs<E>& r1cs);

// The first constraint i with (A_i·w)(B_i·w) != C_i·w, or nullopt when w satisfies every one.
// w must have n_wires values (checked: Error otherwise). Runs on the thread pool.
template <class E>
std::optional<size_t> first_unsatisfied(const R1cs<E>& r1cs, std::span<const typename E::Fr> w);

extern template R1cs<zk::Bls12_381> parse_r1cs<zk::Bls12_381>(std::span<const uint8_t>,
                                                              const std::string&);
extern template R1cs<zk::Bls12_381> read_r1cs<zk::Bls12_381>(const std::string&);
extern template std::vector<uint8_t> encode_r1cs<zk::Bls12_381>(const R1cs<zk::Bls12_381>&);
extern template std::optional<size_t> first_unsatisfied<zk::Bls12_381>(
    const R1cs<zk::Bls12_381>&, std::span<const zk::Bls12_381::Fr>);
extern template R1cs<zk::Bn254> parse_r1cs<zk::Bn254>(std::span<const uint8_t>, const std::string&);
extern template R1cs<zk::Bn254> read_r1cs<zk::Bn254>(const std::string&);
extern template std::vector<uint8_t> encode_r1cs<zk::Bn254>(const R1cs<zk::Bn254>&);
extern template std::optional<size_t> first_unsatisfied<zk::Bn254>(const R1cs<zk::Bn254>&,
                                                                   std::span<const zk::Bn254::Fr>);

}  // namespace splitprove::io

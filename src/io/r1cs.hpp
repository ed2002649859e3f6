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
#include <span>
#include <string>
#include <vector>

#include "zk/r1cs.hpp"

namespace splitprove::io {

// The constraint system itself is zk's (zk/r1cs.hpp); io reads and writes it.
using zk::R1cs;
using zk::Term;

template <class E>
R1cs<E> parse_r1cs(std::span<const uint8_t> bytes, const std::string& name);
template <class E>
R1cs<E> read_r1cs(const std::string& path);

// Writes a version-1 .r1cs the way circom lays it out (sections 2, 1, then 3 if labels exist).
template <class E>
std::vector<uint8_t> encode_r1cs(const R1cs<E>& r1cs);

// One line per curve of SPLITPROVE_FOR_EACH_ENGINE (ec/curves.hpp).
#define SPLITPROVE_IO_R1CS_EXTERN(E) \
  extern template R1cs<E> parse_r1cs<E>(std::span<const uint8_t>, const std::string&); \
  extern template R1cs<E> read_r1cs<E>(const std::string&);                            \
  extern template std::vector<uint8_t> encode_r1cs<E>(const R1cs<E>&);
SPLITPROVE_FOR_EACH_ENGINE(SPLITPROVE_IO_R1CS_EXTERN)
#undef SPLITPROVE_IO_R1CS_EXTERN

}  // namespace splitprove::io

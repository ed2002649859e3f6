#pragma once
// snarkjs's Groth16 proving key (.zkey, version 1). Layout (FORMATS.md has the details):
//   1 protocol (u32, 1 = Groth16)     2 Groth16 header (primes, counts, alpha1 beta1 beta2 gamma2
//   delta1 delta2)   3 IC   4 A/B coefficients   5 A   6 B1   7 B2   8 C (private wires)   9 H
//   10 MPC contributions (circuit hash, transcript; provers ignore it)
// Points are LEM-encoded (io/points.hpp); coefficients are stored as coef·R² mod r (see
// zk::Coefficient). Sections are read by id in any order; everything is validated: sizes against
// counts, primes, field ranges, every point on the curve and in its subgroup.
//
// The reader maps the file (read_zkey). The point sections A, B1, B2, C and H (all but a few
// hundred bytes of a large key) are checked in place, in parallel, and then used where they lie:
// the encoding is the in-memory layout of ec::Curve::Affine, so the key's point arrays
// (util::PodArray) borrow the mapping, which they keep alive, instead of copying ~0.4 GiB into
// fresh memory for a 2^20-constraint BN254 circuit. The pages are the file's page cache: shared
// with other processes reading the key, and clean (the kernel can drop and re-read them under
// memory pressure). The file must therefore not be changed in place while a key read from it is
// in use (replace it by renaming a new file over it); ZkeyReadOptions::map_points = false copies
// the points instead. parse_zkey (bytes owned by the caller) always copies.
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "io/r1cs.hpp"
#include "zk/types.hpp"

namespace splitprove::io {

// What a .zkey holds beside the proving key: the MPC bookkeeping of section 10 and the section
// order, so that a key can be written back byte for byte.
struct ZkeyMeta {
  std::array<uint8_t, 64> circuit_hash{};  // Blake2b-512 over the ptau-derived setup (not
                                           // recomputable from the key: it hashes ptau points)
  bool has_contributions_section = false;
  uint32_t n_contributions = 0;
  std::vector<uint8_t> contributions_section;  // section 10 payload, verbatim
  std::vector<uint32_t> section_order;         // section ids as they occur in the file
};

struct ZkeyReadOptions {
  // Subgroup membership of every point. Only turn off for a key this process (or a trusted
  // pipeline) has already validated: it is most of the read time (~2 scalar multiplications by
  // the 64-bit BLS parameter per G1 point). Range and curve checks always run.
  bool check_subgroup = true;
  // read_zkey: use the point sections where the file is mapped (see above); false copies them.
  bool map_points = true;
};

// snarkjs `groth16 setup` order; `zkey contribute` writes 1..10 instead.
inline constexpr std::array<uint32_t, 10> kSetupSectionOrder = {1, 2, 4, 3, 9, 8, 5, 6, 7, 10};

struct ZkeyWriteOptions {
  // Section 10: by default the circuit hash followed by zero contributions (what `groth16 setup`
  // writes; snarkjs's prover and `zkey export verificationkey` accept it; `zkey verify` would
  // rightly say no contribution explains delta). Non-empty `contributions_section` is written
  // verbatim instead (it must belong to this key: a transcript of other parameters is a lie).
  std::array<uint8_t, 64> circuit_hash{};
  std::vector<uint8_t> contributions_section;
  std::vector<uint32_t> section_order{kSetupSectionOrder.begin(), kSetupSectionOrder.end()};

  // Options that reproduce the file `meta` was read from.
  static ZkeyWriteOptions reproducing(const ZkeyMeta& meta) {
    ZkeyWriteOptions o;
    o.circuit_hash = meta.circuit_hash;
    o.contributions_section = meta.contributions_section;
    o.section_order = meta.section_order;
    return o;
  }
};

template <class E>
zk::ProvingKey<E> parse_zkey(std::span<const uint8_t> bytes, const std::string& name,
                             const ZkeyReadOptions& opt = {}, ZkeyMeta* meta = nullptr);
template <class E>
zk::ProvingKey<E> read_zkey(const std::string& path, const ZkeyReadOptions& opt = {},
                            ZkeyMeta* meta = nullptr);

// The verifying key of a .zkey: the header and IC, every point fully checked (subgroup included),
// without reading the proving sections (whose sizes are still checked against the header). What
// exporting a verifying key needs: milliseconds, where reading and checking a 2^20 key's ~5M
// proving points takes minutes.
template <class E>
zk::VerifyingKey<E> read_zkey_verifying_key(const std::string& path);

template <class E>
void write_zkey(const std::string& path, const zk::ProvingKey<E>& pk,
                const ZkeyWriteOptions& opt = {});
template <class E>
std::vector<uint8_t> encode_zkey(const zk::ProvingKey<E>& pk, const ZkeyWriteOptions& opt = {});

// Cross-file consistency, as snarkjs's setup derives the key from the circuit: n_vars = nWires,
// n_public = nPubOut + nPubIn, domain_size = the smallest power of two > nConstraints + n_public,
// and the coefficient list is exactly the r1cs's A and B terms (per constraint, A then B), then
// one A entry 1·w_i in row nConstraints + i for each i = 0..n_public. Errors name both files.
template <class E>
void check_zkey_matches_r1cs(const zk::ProvingKey<E>& pk, const std::string& zkey_name,
                             const R1cs<E>& r1cs);

// One line per curve of SPLITPROVE_FOR_EACH_ENGINE (ec/curves.hpp).
#define SPLITPROVE_IO_ZKEY_EXTERN(E) \
  extern template zk::ProvingKey<E> parse_zkey<E>(std::span<const uint8_t>, const std::string&,       \
                                           const ZkeyReadOptions&, ZkeyMeta*);                 \
  extern template zk::VerifyingKey<E> read_zkey_verifying_key<E>(const std::string&);                 \
  extern template zk::ProvingKey<E> read_zkey<E>(const std::string&, const ZkeyReadOptions&,          \
                                          ZkeyMeta*);                                          \
  extern template void write_zkey<E>(const std::string&, const zk::ProvingKey<E>&,                    \
                              const ZkeyWriteOptions&);                                        \
  extern template std::vector<uint8_t> encode_zkey<E>(const zk::ProvingKey<E>&,                       \
                                               const ZkeyWriteOptions&);                       \
  extern template void check_zkey_matches_r1cs<E>(const zk::ProvingKey<E>&, const std::string&,       \
                                           const R1cs<E>&);
SPLITPROVE_FOR_EACH_ENGINE(SPLITPROVE_IO_ZKEY_EXTERN)
#undef SPLITPROVE_IO_ZKEY_EXTERN

}  // namespace splitprove::io

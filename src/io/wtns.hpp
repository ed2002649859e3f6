#pragma once
// A witness file (.wtns, version 2), as circom's witness calculator and snarkjs write it:
//   section 1 (header): u32 n8 (= 32), r (n8 bytes LE), u32 nWitness (= the r1cs's nWires)
//   section 2 (values): nWitness × n8 bytes, plain (not Montgomery) LE, each < r; value 0 is 1
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "util/memory.hpp"
#include "ec/curves.hpp"
#include "zk/types.hpp"

namespace splitprove::io {

template <class E>
struct Witness {
  std::string source;                  // file name, for messages
  util::UninitVector<typename E::Fr> values;  // filled by the pool's workers (util/memory.hpp)  // w[0] = 1, then circom's wire order
};

template <class E>
Witness<E> parse_wtns(std::span<const uint8_t> bytes, const std::string& name);
template <class E>
Witness<E> read_wtns(const std::string& path);
template <class E>
std::vector<uint8_t> encode_wtns(std::span<const typename E::Fr> values);
// Every check read_wtns + check_witness_length make (header, each value < r, the count against
// `expected`, w[0] = 1) without keeping the values: the file is mapped, not copied into memory.
// Returns nWitness.
template <class E>
uint32_t validate_wtns(const std::string& path, uint64_t expected, const std::string& other_name,
                       const char* other_what);

// Cross-file counts: the witness must have one value per wire of the circuit / variable of the key
// (the check snarkjs's prover makes), and w[0] must be 1. Errors name both files.
template <class E>
void check_witness_length(const Witness<E>& w, uint64_t expected, const std::string& other_name,
                          const char* other_what);

// One line per curve of SPLITPROVE_FOR_EACH_ENGINE (ec/curves.hpp).
#define SPLITPROVE_IO_WTNS_EXTERN(E) \
  extern template Witness<E> parse_wtns<E>(std::span<const uint8_t>, const std::string&);             \
  extern template Witness<E> read_wtns<E>(const std::string&);                                       \
  extern template uint32_t validate_wtns<E>(const std::string&, uint64_t, const std::string&, const char*); \
  extern template std::vector<uint8_t> encode_wtns<E>(std::span<const typename E::Fr>);              \
  extern template void check_witness_length<E>(const Witness<E>&, uint64_t, const std::string&,      \
                                        const char*);
SPLITPROVE_FOR_EACH_ENGINE(SPLITPROVE_IO_WTNS_EXTERN)
#undef SPLITPROVE_IO_WTNS_EXTERN

}  // namespace splitprove::io

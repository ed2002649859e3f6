// libFuzzer target: the Groth16 .zkey reader on arbitrary bytes (parse or splitprove::Error).
// Invariant: a key that parses, written back with the bookkeeping it was read with, gives the input
// bytes exactly (every accepted encoding is canonical) when its sections are exactly 1..10.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "io/zkey.hpp"
#include "splitprove/error.hpp"

template <class E>
void fuzz_one(const uint8_t* data, size_t size) {
  try {
    splitprove::io::ZkeyMeta meta;
    const auto pk = splitprove::io::parse_zkey<E>({data, size}, "fuzz.zkey", {}, &meta);
    auto order = meta.section_order;
    std::sort(order.begin(), order.end());
    const bool canonical_layout = order == std::vector<uint32_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    if (canonical_layout) {
      const auto out =
          splitprove::io::encode_zkey<E>(pk, splitprove::io::ZkeyWriteOptions::reproducing(meta));
      if (out.size() != size || std::memcmp(out.data(), data, size) != 0) std::abort();
    }
  } catch (const splitprove::Error&) {
  }
}

// Both engines see every input: each reader must refuse the other curve's files cleanly too.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz_one<splitprove::ec::Bls12_381>(data, size);
  fuzz_one<splitprove::ec::Bn254>(data, size);
  return 0;
}

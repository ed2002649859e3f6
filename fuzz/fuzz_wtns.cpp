// libFuzzer target: the .wtns reader on arbitrary bytes (parse or splitprove::Error, nothing else).
// A parsed witness re-encodes to a file that parses to the same values.
#include <cstdint>
#include <cstdlib>

#include "io/wtns.hpp"
#include "splitprove/error.hpp"

template <class E>
void fuzz_one(const uint8_t* data, size_t size) {
  try {
    const auto w = splitprove::io::parse_wtns<E>({data, size}, "fuzz.wtns");
    const auto again =
        splitprove::io::parse_wtns<E>(splitprove::io::encode_wtns<E>(w.values), "again");
    if (again.values != w.values) std::abort();
  } catch (const splitprove::Error&) {
  }
}

// Both engines see every input: each reader must refuse the other curve's files cleanly too.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz_one<splitprove::ec::Bls12_381>(data, size);
  fuzz_one<splitprove::ec::Bn254>(data, size);
  return 0;
}

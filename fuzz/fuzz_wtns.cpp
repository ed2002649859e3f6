// libFuzzer target: the .wtns reader on arbitrary bytes (parse or splitprove::Error, nothing else).
// A parsed witness re-encodes to a file that parses to the same values.
#include <cstdint>
#include <cstdlib>

#include "io/wtns.hpp"
#include "splitprove/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using E = splitprove::zk::Bls12_381;
  try {
    const auto w = splitprove::io::parse_wtns<E>({data, size}, "fuzz.wtns");
    const auto again =
        splitprove::io::parse_wtns<E>(splitprove::io::encode_wtns<E>(w.values), "again");
    if (again.values != w.values) std::abort();
  } catch (const splitprove::Error&) {
  }
  return 0;
}

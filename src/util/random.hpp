#pragma once
// The OS CSPRNG (getrandom) as a UniformRandomBitGenerator of 64-bit words: the source of every
// secret (prover randomness r and s, development-setup toxic waste).
#include <sys/random.h>

#include <cerrno>
#include <cstdint>

#include "splitprove/error.hpp"

namespace splitprove::util {

struct OsRng {
  using result_type = uint64_t;
  static constexpr uint64_t min() { return 0; }
  static constexpr uint64_t max() { return ~uint64_t(0); }
  uint64_t operator()() {
    uint64_t x = 0;
    for (;;) {
      ssize_t n = getrandom(&x, sizeof x, 0);
      if (n == ssize_t(sizeof x)) return x;
      if (n < 0 && errno != EINTR) throw Error("getrandom failed: the OS CSPRNG is unavailable");
    }
  }
};

}  // namespace splitprove::util

#pragma once
// Orders and directions of the radix-2 number-theoretic transforms of src/poly (the vocabulary
// callers use with poly::Domain). Kept free of field code so that it is cheap to include.
//
// A transform of size n = 2^k reads and writes its data in one of two orders:
//   natural       position p holds index p,
//   bit-reversed  position p holds index bitrev_k(p) (the k-bit reversal of p).
// "Index" is the coefficient index for coefficient vectors and the exponent i of ω^i for
// evaluation vectors. Choosing the orders of chained transforms (e.g. an inverse NTT NR followed
// by a forward NTT RN) avoids any separate bit-reversal pass, as in sppark.
#include <cstddef>
#include <cstdint>

namespace splitprove::poly {

// <input order><output order>: N = natural, R = bit-reversed.
enum class Order : uint8_t { NN, NR, RN, RR };

enum class Direction : uint8_t { Forward, Inverse };

constexpr bool input_reversed(Order o) { return o == Order::RN || o == Order::RR; }
constexpr bool output_reversed(Order o) { return o == Order::NR || o == Order::RR; }

constexpr const char* to_string(Order o) {
  switch (o) {
    case Order::NN:
      return "NN";
    case Order::NR:
      return "NR";
    case Order::RN:
      return "RN";
    case Order::RR:
      return "RR";
  }
  return "?";
}

// The k-bit reversal of i (i < 2^k, k <= 64).
inline uint64_t bit_reverse(uint64_t i, unsigned k) {
  if (k == 0) return 0;
#if defined(__has_builtin) && __has_builtin(__builtin_bitreverse64)
  return __builtin_bitreverse64(i) >> (64 - k);
#else
  uint64_t r = 0;
  for (unsigned b = 0; b < k; ++b) r |= ((i >> b) & 1) << (k - 1 - b);
  return r;
#endif
}

}  // namespace splitprove::poly

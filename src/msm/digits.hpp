#pragma once
// Signed window digits of a scalar, computed per window without a digit table.
//
//
// Signed digits. With raw c-bit windows r_w of k, the digits are produced from the bottom:
//   t = r_w + carry_w;  if t > 2^(c-1): d_w = t - 2^c, carry_{w+1} = 1;  else d_w = t, carry = 0,
// so d_w is in [-2^(c-1)+1, 2^(c-1)] and |d_w| - 1 indexes 2^(c-1) buckets. The carry into window w
// does not need the lower windows' digits: by induction on w,
//   carry_w = 1  <=>  (k mod 2^(cw)) > T_w,  T_w = sum_{j<w} 2^(c-1)·2^(cj)
// (T_w has the top bit of every lower window set). So a task computes its digits from the scalar
// alone with one masked comparison, and no digit table (n × windows) is ever stored.
// The number of windows is floor(bits/c) + 1: the top window then holds at most c-1 bits of k, so
// t <= 2^(c-1) there and no carry leaves it.
#include <cstdint>

#include "msm/cost.hpp"

namespace splitprove::msm::detail {

// ---- signed digits ------------------------------------------------------------------------------
template <size_t N>
struct WindowDigits {
  unsigned c = 0, lo = 0;       // window w covers bits [lo, lo + c), lo = c·w
  ff::Limbs<N> mask{}, thr{};   // low lo bits; T_w
  uint64_t half = 0, full = 0;  // 2^(c-1), 2^c

  WindowDigits(unsigned c_, unsigned w)
      : c(c_), lo(c_ * w), half(uint64_t(1) << (c_ - 1)), full(uint64_t(1) << c_) {
    for (unsigned b = 0; b < lo && b < 64 * N; ++b) mask[b / 64] |= uint64_t(1) << (b % 64);
    for (unsigned j = 0; j < w; ++j) {
      const unsigned b = c * j + c - 1;
      thr[b / 64] |= uint64_t(1) << (b % 64);
    }
  }

  // The signed digit d_w of k.
  int64_t operator()(const ff::Limbs<N>& k) const {
    const unsigned limb = lo / 64, sh = lo % 64;
    uint64_t raw = 0;
    if (limb < N) {
      raw = k[limb] >> sh;
      if (sh + c > 64 && limb + 1 < N) raw |= k[limb + 1] << (64 - sh);
      raw &= full - 1;
    }
    // carry = (k mod 2^lo) > T_w: the borrow of T_w - (k mod 2^lo). Branch-free, as is the sign
    // below: both are coin flips on random scalars, and a mispredicted branch per digit cost
    // more than the arithmetic.
    uint64_t carry = 0;
    for (size_t i = 0; i < N; ++i) {
      const unsigned __int128 d = (unsigned __int128)thr[i] - (k[i] & mask[i]) - carry;
      carry = uint64_t(d >> 64) & 1;
    }
    const uint64_t t = raw + carry;
    return int64_t(t) - int64_t(full & (uint64_t(0) - uint64_t(t > half)));
  }
};

}  // namespace splitprove::msm::detail

#pragma once
// The MSM's cost model (msm_impl.hpp's planning chooses windows and methods with it): the price
// of one addition of each kind in multiplications of the coordinate field, and the window width
// that minimizes a tail's cost.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>

#include "ec/curve.hpp"
#include "ff/lanes.hpp"
#include "msm/msm.hpp"
#include "splitprove/error.hpp"
#include "util/memory.hpp"
#include "util/parallel.hpp"

namespace splitprove::msm::detail {

// ---- cost model ---------------------------------------------------------------------------------
// Units: one multiplication in the coordinate field F (Fp for G1, Fp2 for G2). A mixed XYZZ
// addition is 8M + 2S; a batch-affine addition is 1M (slope) + 1S + 1M (y) + 3M (its share of
// Montgomery's batch inversion) = 6M, measured at ~8.5M with its memory traffic and subtractions
// (BLS12-381 G1, single thread, 2^16 and 2^18 terms: 550 ns against 650 ns per XYZZ addition);
// reducing one bucket costs one mixed and one full XYZZ addition (running += bucket, sum +=
// running: 10 + 14).
inline constexpr double kCostXyzzAdd = 10.0;
inline constexpr double kCostAffineAdd = 8.5;
inline constexpr double kCostBucket = 24.0;
// In a field with the eight-lane kernel (ff/lanes.hpp) the batch-affine addition's products run
// eight at a time: the addition costs about half as much (BN254 and BLS12-381 G1, single thread,
// 2^16 terms: 45% less time); window choices from costs 3.5 to 8.5 measured alike within the
// noise (`git show 8b38ce2:bench/RESULTS.md`, the section of 2026-12-03 16:40 on "lanes").
inline constexpr double kCostAffineAddLanes = 6.0;
template <class C>
constexpr double affine_add_cost() {
  return ff::HasLanes<typename C::F> ? kCostAffineAddLanes : kCostAffineAdd;
}
// Scalar bits the windows cover (BLS12-381 r: 255 bits, BN254 r: 254); make_plan checks Fr.
inline constexpr unsigned kScalarBits = 255;

inline unsigned num_windows(unsigned bits, unsigned c) { return bits / c + 1; }

inline double window_cost(size_t tail, unsigned c, double add_cost, unsigned bits) {
  return double(num_windows(bits, c)) *
         (double(tail) * add_cost + double(size_t(1) << (c - 1)) * kCostBucket);
}

inline unsigned best_window_bits(size_t tail, double add_cost, unsigned bits = kScalarBits) {
  unsigned best = 1;
  double best_cost = window_cost(tail, 1, add_cost, bits);
  for (unsigned c = 2; c <= 16; ++c) {
    const double cost = window_cost(tail, c, add_cost, bits);
    if (cost < best_cost) best = c, best_cost = cost;
  }
  return best;
}

}  // namespace splitprove::msm::detail

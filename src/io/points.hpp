#pragma once
// The snarkjs/ffjavascript binary point encoding ("LEM"): affine, uncompressed, x then y, each
// base-field coordinate n8q = 8·Fp::N bytes little-endian *in Montgomery form* (R = 2^(64·N), the
// same R as ff::Field, so a coordinate is copied, not converted). G2 coordinates are Fp2 = c0 then
// c1. The identity is all zero bytes ((0, 0) is not on y² = x³ + b since b ≠ 0). No flag bits.
//
// Decoding checks, in this order, and names the first failure: every coordinate below q, the curve
// equation, and membership in the prime-order subgroup (the costly part: two multiplications by
// the BLS parameter x per G1 point, one per G2 point, so decode_points runs on the thread pool).
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "ec/curve_lanes.hpp"
#include "io/binfile.hpp"
#include "util/memory.hpp"
#include "util/parallel.hpp"

namespace splitprove::io {

enum class PointProblem {
  kNone,
  kRangeX0,
  kRangeX1,
  kRangeY0,
  kRangeY1,
  kNotOnCurve,
  kNotInSubgroup
};

inline std::string describe(PointProblem p) {
  switch (p) {
    case PointProblem::kNone:
      return "ok";
    case PointProblem::kRangeX0:
      return "coordinate x is not a field element (>= q)";
    case PointProblem::kRangeX1:
      return "coordinate x.c1 is not a field element (>= q)";
    case PointProblem::kRangeY0:
      return "coordinate y is not a field element (>= q)";
    case PointProblem::kRangeY1:
      return "coordinate y.c1 is not a field element (>= q)";
    case PointProblem::kNotOnCurve:
      return "not on the curve";
    case PointProblem::kNotInSubgroup:
      return "not in the prime-order subgroup";
  }
  return "unknown";
}

template <class E>
struct PointCodec {
  using Fp = typename E::Fp;
  using Fp2 = typename E::Fp2;
  using G1Affine = typename E::G1Affine;
  using G2Affine = typename E::G2Affine;
  static constexpr size_t kFp = 8 * Fp::N;  // n8q
  static constexpr size_t kG1 = 2 * kFp;
  static constexpr size_t kG2 = 4 * kFp;

  static bool load_fp(const uint8_t* p, Fp& out) {
    const auto m = load_le<Fp::N>(p);
    if (ff::cmp_limbs(m, Fp::MOD) >= 0) return false;  // Montgomery values are reduced too
    out = Fp::from_mont(m);
    return true;
  }
  static bool all_zero(const uint8_t* p, size_t n) {
    uint8_t acc = 0;
    for (size_t i = 0; i < n; ++i) acc |= p[i];
    return acc == 0;
  }

  // check_curve = false leaves the curve equation (and with it the subgroup) to the caller.
  static PointProblem decode(const uint8_t* p, G1Affine& out, bool check_subgroup,
                             bool check_curve = true) {
    if (all_zero(p, kG1)) {
      out = G1Affine::identity();
      return PointProblem::kNone;
    }
    G1Affine a;
    if (!load_fp(p, a.x)) return PointProblem::kRangeX0;
    if (!load_fp(p + kFp, a.y)) return PointProblem::kRangeY0;
    if (check_curve) {
      if (!a.on_curve()) return PointProblem::kNotOnCurve;
      if (check_subgroup && !E::in_subgroup(a.to_jacobian())) return PointProblem::kNotInSubgroup;
    }
    out = a;
    return PointProblem::kNone;
  }
  static PointProblem decode(const uint8_t* p, G2Affine& out, bool check_subgroup,
                             bool check_curve = true) {
    if (all_zero(p, kG2)) {
      out = G2Affine::identity();
      return PointProblem::kNone;
    }
    G2Affine a;
    if (!load_fp(p, a.x.c0)) return PointProblem::kRangeX0;
    if (!load_fp(p + kFp, a.x.c1)) return PointProblem::kRangeX1;
    if (!load_fp(p + 2 * kFp, a.y.c0)) return PointProblem::kRangeY0;
    if (!load_fp(p + 3 * kFp, a.y.c1)) return PointProblem::kRangeY1;
    if (check_curve) {
      if (!a.on_curve()) return PointProblem::kNotOnCurve;
      if (check_subgroup && !E::in_subgroup(a.to_jacobian())) return PointProblem::kNotInSubgroup;
    }
    out = a;
    return PointProblem::kNone;
  }

  static void encode(const G1Affine& a, uint8_t* p) {
    if (a.is_identity()) {
      std::fill(p, p + kG1, uint8_t(0));
      return;
    }
    store_le(a.x.mont(), p);
    store_le(a.y.mont(), p + kFp);
  }
  static void encode(const G2Affine& a, uint8_t* p) {
    if (a.is_identity()) {
      std::fill(p, p + kG2, uint8_t(0));
      return;
    }
    store_le(a.x.c0.mont(), p);
    store_le(a.x.c1.mont(), p + kFp);
    store_le(a.y.c0.mont(), p + 2 * kFp);
    store_le(a.y.c1.mont(), p + 3 * kFp);
  }

  template <class Affine>
  static constexpr size_t size_of() {
    return std::is_same_v<Affine, G1Affine> ? kG1 : kG2;
  }
};

// Checks the bytes.size()/size points of `bytes` (ranges, the curve, the subgroup when asked) on
// the thread pool and hands each one to put(i, point) (from any worker, each index once). On
// failure throws Error(where + label + " " + i + ": " + problem) for the *lowest* failing index i,
// so the message does not depend on scheduling: a chunk stops once it passes an index already
// known to fail. put may have been called for points before and after that one.
template <class E, class Affine, class Put>
void scan_points(std::span<const uint8_t> bytes, const std::string& where, bool check_subgroup,
                 const char* label, const Put& put) {
  using Codec = PointCodec<E>;
  constexpr size_t kSize = Codec::template size_of<Affine>();
  const size_t n = bytes.size() / kSize;
  std::atomic<size_t> first_bad{std::numeric_limits<size_t>::max()};
  // 64 points per chunk at least: a G1 subgroup check is ~130 group doublings (~75 us on the dev
  // VM), so even the smallest chunk is milliseconds of work against microseconds of pool overhead;
  // 4 chunks per thread even out identity points (free) against real ones.
  using C = std::conditional_t<std::is_same_v<Affine, typename E::G1Affine>, typename E::G1,
                               typename E::G2>;
  util::parallel_for(
      n,
      [&](size_t begin, size_t end) {
        size_t i = begin;
#if SPLITPROVE_IFMA
        // Without the subgroup check the curve equation is the work: eight points at a time in
        // lanes, after their range checks. A group with any problem is left to the loop below,
        // which checks point by point and reports the first problem.
        if constexpr (ec::CurveLanes<C>) {
          Affine group[8];
          const Affine* pts[8];
          for (size_t l = 0; l < 8; ++l) pts[l] = &group[l];
          for (; !check_subgroup && i + 8 <= end; i += 8) {
            if (i > first_bad.load(std::memory_order_relaxed)) return;
            bool ok = true;
            __mmask8 live = 0;
            for (size_t l = 0; l < 8 && ok; ++l) {
              ok = Codec::decode(bytes.data() + (i + l) * kSize, group[l], false, false) ==
                   PointProblem::kNone;
              live |= __mmask8(ok && !group[l].is_identity()) << l;
            }
            if (!ok || (ec::on_curve8<C>(pts) & live) != live) break;
            for (size_t l = 0; l < 8; ++l) put(i + l, group[l]);
          }
        }
#endif
        for (; i < end; ++i) {
          if (i > first_bad.load(std::memory_order_relaxed)) return;
          Affine a;
          const PointProblem pr = Codec::decode(bytes.data() + i * kSize, a, check_subgroup);
          if (pr == PointProblem::kNone) {
            put(i, a);
            continue;
          }
          size_t cur = first_bad.load();
          while (i < cur && !first_bad.compare_exchange_weak(cur, i)) {
          }
          return;
        }
      },
      64, util::num_threads() * 4);
  const size_t bad = first_bad.load();
  if (bad != std::numeric_limits<size_t>::max()) {
    Affine tmp;
    const PointProblem pr = Codec::decode(bytes.data() + bad * kSize, tmp, check_subgroup);
    throw Error(where + label + " " + std::to_string(bad) + ": " + describe(pr));
  }
}

// Checks the points of `bytes` (scan_points) without keeping them: for bytes that are used as
// they are (the encoding is the in-memory layout of Affine, see ec::Curve::Affine).
template <class E, class Affine>
void check_points(std::span<const uint8_t> bytes, const std::string& where, bool check_subgroup,
                  const char* label = "point") {
  scan_points<E, Affine>(bytes, where, check_subgroup, label, [](size_t, const Affine&) {});
}

// Decodes the points of `bytes` into `out` (resized), checked as by scan_points.
template <class E, class Affine, class Alloc>
void decode_points(std::span<const uint8_t> bytes, std::vector<Affine, Alloc>& out,
                   const std::string& where, bool check_subgroup, const char* label = "point") {
  constexpr size_t kSize = PointCodec<E>::template size_of<Affine>();
  const size_t n = bytes.size() / kSize;
  // Huge pages for the megabytes of a key's point vectors: their first touch (by the workers
  // below where `out` is a util::UninitVector; by resize otherwise) then takes a fault per 2 MiB,
  // not per 4 KiB.
  out.reserve(n);
  util::advise_huge_pages(out.data(), n * sizeof(Affine));
  out.resize(n);
  scan_points<E, Affine>(bytes, where, check_subgroup, label,
                         [&](size_t i, const Affine& a) { out[i] = a; });
}

}  // namespace splitprove::io

#pragma once
// The tail of one scalar vector (the terms that are neither 0 nor 1), the points it names (with
// GLV endomorphism images where the curve has one), and the parallel classification that builds
// it.
#include "msm/digits.hpp"

namespace splitprove::msm::detail {

// ---- the tail of one scalar vector --------------------------------------------------------------
// A tail entry names its point by a 32-bit word: the low 30 bits are a position in bases (or, with
// kEndoBit, in Tail::endo), and kNegBit asks for the point's negation.
inline constexpr uint32_t kEndoBit = uint32_t(1) << 31, kNegBit = uint32_t(1) << 30,
                          kPosMask = kNegBit - 1;

template <class C>
struct Tail {
  // Written by the pool's workers, so not zeroed first (util/memory.hpp). index: the point words
  // (above), without GLV positions in bases, increasing; scalar: the canonical scalars, same
  // order; endo: with GLV, E(P) of the tail's bases, by tail position.
  util::UninitVector<uint32_t> index;
  util::UninitVector<Limbs<C>> scalar;
  util::UninitVector<typename C::Affine> endo;
  unsigned bits = kScalarBits;  // every scalar is below 2^bits
  typename C::Xyzz ones = C::Xyzz::identity();
};

// `cond ? a : b` for a field element, by masks rather than a branch.
template <class T>
T select_if(bool cond, const T& a, const T& b) {
  static_assert(std::is_trivially_copyable_v<T> && sizeof(T) % 8 == 0);
  constexpr size_t kWords = sizeof(T) / 8;
  uint64_t wa[kWords], wb[kWords];
  std::memcpy(wa, &a, sizeof(T));
  std::memcpy(wb, &b, sizeof(T));
  const uint64_t m = uint64_t(0) - uint64_t(cond);
  for (size_t i = 0; i < kWords; ++i) wa[i] = (wa[i] & m) | (wb[i] & ~m);
  T r;
  std::memcpy(&r, wa, sizeof(T));
  return r;
}

// The point a tail word names (see Tail), negated when `neg` (a negative digit).
template <class C>
struct Points {
  util::PodSpan<typename C::Affine> bases, endo;
  typename C::Affine operator()(uint32_t word, bool neg) const {
    typename C::Affine p = (word & kEndoBit) ? endo[word & kPosMask] : bases[word & kPosMask];
    // -p where asked, without a branch (the sign of a digit is a coin flip).
    p.y = select_if(neg != bool(word & kNegBit), -p.y, p.y);
    return p;
  }
};

// Capacity for n terms in a tail's word and scalar vectors (util::UninitAllocator advises huge
// pages for them).
template <class C>
void reserve_tail(Tail<C>& t, size_t n) {
  t.index.reserve(n);
  t.scalar.reserve(n);
}

// GLV (see ec::GlvSplit): the tail of T terms k_j·P_j becomes 2T terms of ~half-length scalars,
// k1_j·(±P_j) in place and k2_j·(±E(P_j)) appended, E(P_j) stored in tail.endo. The windows then
// cover kBits instead of 255 bits: half as many windows over twice the terms, so the additions stay
// the same and the bucket reductions halve. The split and E cost a few products per term.
template <class C>
constexpr bool has_glv() {
  return requires { C::Params::Glv::kBits; };
}

template <class C>
constexpr unsigned glv_bits() {
  if constexpr (has_glv<C>()) return C::Params::Glv::kBits;
  return kScalarBits;
}

template <class C>
void glv_expand(util::PodSpan<typename C::Affine> bases, Tail<C>& t) {
  if constexpr (has_glv<C>()) {
    using Glv = typename C::Params::Glv;
    const size_t n = t.index.size();
    if (n == 0 || n > kPosMask) return;
    reserve_tail(t, 2 * n);
    t.endo.resize(n);
    t.index.resize(2 * n);
    t.scalar.resize(2 * n);
    util::parallel_for(
        n,
        [&](size_t b, size_t e) {
          for (size_t j = b; j < e; ++j) {
            const uint32_t pos = t.index[j];
            const ec::GlvSplit<C::Fr::N> sp = Glv::split(t.scalar[j]);
            auto q = bases[pos];
            Glv::endo(q.x, q.y);
            t.endo[j] = q;
            t.index[j] = pos | (sp.neg1 ? kNegBit : 0);
            t.scalar[j] = sp.k1;
            t.index[n + j] = uint32_t(j) | kEndoBit | (sp.neg2 ? kNegBit : 0);
            t.scalar[n + j] = sp.k2;
          }
        },
        1024);
    t.bits = Glv::kBits;
  }
}

// Splits [0, n) into `parts` near-equal slices.
inline size_t slice_begin(size_t n, size_t parts, size_t i) {
  return size_t((unsigned __int128)n * i / parts);
}

// Classifies terms (see the outline). kind(i) returns 0 (zero), 1 (one) or 2 (tail) and may throw
// for an invalid scalar; canonical(i) returns the canonical limbs of a tail scalar. With `glv`
// (the call may split the scalars) the tail's vectors get room for the split's second half.
// The tail is written to `out`, whose arrays keep their capacity (a Workspace's tail from an
// earlier call: its pages are already faulted in).
template <class C, class Kind, class Canonical>
void classify(util::PodSpan<typename C::Affine> bases, size_t n, const Kind& kind,
              const Canonical& canonical, bool glv, Tail<C>& out) {
  using Xyzz = typename C::Xyzz;
  out.index.clear();
  out.scalar.clear();
  out.endo.clear();
  out.bits = kScalarBits;
  out.ones = Xyzz::identity();
  if (n == 0) return;
  if (n > size_t(UINT32_MAX))
    throw Error("msm: " + std::to_string(n) + " terms: at most 2^32 - 1 are supported");
  // ~4 slices per thread even out slices with more ones or more tail than others.
  const size_t parts = std::min(n, std::max<size_t>(1, 4 * util::num_threads()));
  std::vector<size_t> count(parts + 1, 0);
  std::vector<Xyzz> ones(parts, Xyzz::identity());
  // Pass 1 counts each slice's tail, so that the tail is allocated once at its exact size.
  util::parallel_for(
      parts,
      [&](size_t pb, size_t pe) {
        for (size_t p = pb; p < pe; ++p) {
          size_t c = 0;
          for (size_t i = slice_begin(n, parts, p), e = slice_begin(n, parts, p + 1); i < e; ++i)
            c += kind(i) == 2 && !bases[i].is_identity();
          count[p + 1] = c;
        }
      },
      1, parts);
  for (size_t p = 0; p < parts; ++p) count[p + 1] += count[p];
  const size_t tail = count[parts];
  // Room for the GLV split's second half (glv_expand), so that it does not move the first.
  reserve_tail(out, glv && has_glv<C>() && tail <= kPosMask ? 2 * tail : tail);
  out.index.resize(tail);
  out.scalar.resize(tail);
  // Pass 2 sums the ones and writes each slice's tail at its offset (input order is kept).
  util::parallel_for(
      parts,
      [&](size_t pb, size_t pe) {
        for (size_t p = pb; p < pe; ++p) {
          size_t at = count[p];
          Xyzz acc = Xyzz::identity();
          for (size_t i = slice_begin(n, parts, p), e = slice_begin(n, parts, p + 1); i < e; ++i) {
            if (bases[i].is_identity()) continue;
            const int kd = kind(i);
            if (kd == 1) {
              acc += bases[i];
            } else if (kd == 2) {
              out.index[at] = uint32_t(i);
              out.scalar[at] = canonical(i);
              ++at;
            }
          }
          ones[p] = acc;
        }
      },
      1, parts);
  for (const auto& o : ones) out.ones += o;
}

}  // namespace splitprove::msm::detail

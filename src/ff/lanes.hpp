#pragma once
// Eight elements of a prime field side by side, for batch work where many independent products
// wait (the batch-affine MSM's additions): AVX-512 IFMA (vpmadd52luq/vpmadd52huq) multiplies
// eight 52-bit limb pairs per instruction, where the scalar mulx kernel multiplies one 64-bit
// pair. An element is held in L = ceil(64N/52) limbs of 52 bits (N = 4: 5 limbs, N = 6: 8), one
// 512-bit register per limb, lane i holding element i.
//
// The lanes use the scalar field's own Montgomery form (R = 2^(64N)), so loading and storing are
// radix changes and nothing else: the product's reduction runs L - 1 rounds of 52 bits and a last
// round of 52 - S bits (S = 52L - 64N), dividing by exactly 2^(64N).
//
// Values in lanes are integers below a small multiple of p, not always reduced: a product of
// inputs below a·p and b·p is below (a·b·rho + 1)·p with rho = p/R (BN254: 0.189, BLS12-381:
// 0.102; the kernel requires rho < 0.19, which the callers' bound tables assume), and every limb
// is kept below 2^52 (normalized) because the IFMA products read only the low 52 bits of their
// inputs. Callers keep values below 4p (LaneOps below says how); store_rows reduces completely.
#include <array>
#include <cstddef>
#include <cstdint>

#include "ff/field.hpp"

#if defined(__x86_64__) && defined(__AVX512F__) && defined(__AVX512IFMA__) && \
    defined(__AVX512DQ__) && defined(__OPTIMIZE__) && !defined(SPLITPROVE_PORTABLE_FF)
#define SPLITPROVE_IFMA 1
#include <immintrin.h>
#else
#define SPLITPROVE_IFMA 0
#endif

namespace splitprove::ff {

// Whether this build has the eight-lane kernel (compile-time: -march=native on an AVX-512 IFMA
// machine, or -mavx512ifma -mavx512dq).
inline constexpr bool kHaveLanes = SPLITPROVE_IFMA;

// rho = p/R < 0.19 (100·p < 19·2^(64N)): the bounds of the lanes' callers rely on it; BN254's
// and BLS12-381's base fields have it.
template <class F>
constexpr bool rho_fits() {
  u128 c = 0;
  for (size_t i = 0; i < F::N; ++i) c = (u128(F::MOD[i]) * 100 + c) >> 64;
  return c < 19;
}
// A field the eight-lane kernel serves, in this build: a prime field (not an extension) with
// room for the bounds.
template <class F>
concept LaneField = kHaveLanes && requires {
  F::MOD;
  F::INV;
  F::N;
} && rho_fits<F>();

#if SPLITPROVE_IFMA
template <class F>
class Lanes8 {
 public:
  static constexpr size_t N = F::N;
  static constexpr size_t L = (64 * N + 51) / 52;
  static constexpr unsigned S = unsigned(52 * L - 64 * N);  // bits of the last round: 52 - S
  static constexpr uint64_t M52 = (uint64_t(1) << 52) - 1;
  struct V {
    __m512i l[L];
  };

  // k·p in normalized 52-bit limbs (compile time; k·p < 2^(52L) for the k used).
  static constexpr std::array<uint64_t, L> kp(unsigned k) {
    std::array<uint64_t, N + 1> w{};  // k·p in 64-bit words
    u128 carry = 0;
    for (size_t i = 0; i < N; ++i) {
      const u128 t = u128(F::MOD[i]) * k + carry;
      w[i] = uint64_t(t);
      carry = t >> 64;
    }
    w[N] = uint64_t(carry);
    std::array<uint64_t, L> r{};
    for (size_t i = 0; i < L; ++i) {
      const size_t q = 52 * i / 64, s = 52 * i % 64;
      uint64_t v = w[q] >> s;
      if (s > 12) v |= w[q + 1] << (64 - s);
      r[i] = v & M52;
    }
    return r;
  }

  static_assert(rho_fits<F>(), "the lanes need p/2^(64N) < 0.19");
  static_assert(sizeof(F) == 8 * N, "an element in memory is its N Montgomery words");
  static_assert(S > 0 && S < 52, "the last reduction round is short: 52 - S bits");

  static V zero() {
    V r;
    for (size_t i = 0; i < L; ++i) r.l[i] = _mm512_setzero_si512();
    return r;
  }

  // Eight elements from memory: lane l reads the N words at rows[l] + off (bytes), i.e. the
  // Montgomery representation F::mont() of an element. Row loads (256 and 128 bits) and a
  // transpose: a gather would fetch the 8N words one by one.
  __attribute__((always_inline)) static V load_rows(const char* const* rows, size_t off) {
    __m512i w[N];
    rows_to_words(rows, off, w);
    return from_words(w);
  }
  // Reduced to [0, p) (input below 4p) and written to rows[l] + off, lane by lane as load_rows
  // reads them.
  __attribute__((always_inline)) static void store_rows(const V& a, char* const* rows, size_t off) {
    V r = a;
    cond_sub<2>(r);
    cond_sub<1>(r);
    __m512i w[N];
    to_words(r, w);
    words_to_rows(w, rows, off);
  }
  // Eight consecutive elements x[0..7].
  __attribute__((always_inline)) static V load8(const F* x) {
    const char* rows[8];
    for (size_t l = 0; l < 8; ++l) rows[l] = reinterpret_cast<const char*>(x + l);
    return load_rows(rows, 0);
  }
  // a·b·R^-1 (mod p), below (a·b·rho + 1)·p; inputs normalized.
  __attribute__((always_inline)) static V mul(const V& a, const V& b) {
    __m512i t[2 * L];
#pragma GCC unroll 16
    for (size_t i = 0; i < 2 * L; ++i) t[i] = _mm512_setzero_si512();
    product(t, a, b);
    return reduce(t);
  }
  // (a·b + c·d)·R^-1 (mod p), below ((a·b + c·d)·rho + 1)·p: two products, one reduction.
  __attribute__((always_inline)) static V mul_sum(const V& a, const V& b, const V& c, const V& d) {
    __m512i t[2 * L];
#pragma GCC unroll 16
    for (size_t i = 0; i < 2 * L; ++i) t[i] = _mm512_setzero_si512();
    product(t, a, b);
    product(t, c, d);
    return reduce(t);
  }
  // r ← r - K·p where r ≥ K·p, per lane.
  template <unsigned K>
  __attribute__((always_inline)) static void cond_sub(V& r) {
    V t;
#pragma GCC unroll 16
    for (size_t i = 0; i < L; ++i)
      t.l[i] = _mm512_sub_epi64(r.l[i], _mm512_set1_epi64(int64_t(kKP<K>[i])));
    normalize(t);
    const __mmask8 negative = _mm512_movepi64_mask(t.l[L - 1]);
#pragma GCC unroll 16
    for (size_t i = 0; i < L; ++i) r.l[i] = _mm512_mask_blend_epi64(negative, t.l[i], r.l[i]);
  }

  // Every lane = a.
  __attribute__((always_inline)) static V splat(const F& a) {
    __m512i w[N];
#pragma GCC unroll 8
    for (size_t k = 0; k < N; ++k) w[k] = _mm512_set1_epi64(int64_t(a.mont()[k]));
    return from_words(w);
  }
  // a + b, normalized.
  __attribute__((always_inline)) static V add(const V& a, const V& b) {
    V r;
#pragma GCC unroll 16
    for (size_t i = 0; i < L; ++i) r.l[i] = _mm512_add_epi64(a.l[i], b.l[i]);
    normalize(r);
    return r;
  }
  // Lanes where a ≡ 0 (mod p), for a below 2p.
  __attribute__((always_inline)) static __mmask8 zero_mask(V a) {
    cond_sub<1>(a);
    __m512i any = a.l[0];
#pragma GCC unroll 16
    for (size_t i = 1; i < L; ++i) any = _mm512_or_si512(any, a.l[i]);
    return _mm512_testn_epi64_mask(any, any);
  }
  // Lanes in m take b, the others a.
  __attribute__((always_inline)) static V blend(__mmask8 m, const V& a, const V& b) {
    V r;
#pragma GCC unroll 16
    for (size_t i = 0; i < L; ++i) r.l[i] = _mm512_mask_blend_epi64(m, a.l[i], b.l[i]);
    return r;
  }
  // a - b + k·p (k·p > b, so the result is non-negative), normalized.
  template <unsigned K>
  __attribute__((always_inline)) static V sub(const V& a, const V& b) {
    V r;
#pragma GCC unroll 16
    for (size_t i = 0; i < L; ++i)
      r.l[i] = _mm512_sub_epi64(_mm512_add_epi64(a.l[i], _mm512_set1_epi64(int64_t(kKP<K>[i]))),
                                b.l[i]);
    normalize(r);
    return r;
  }
  // a - b - c + k·p (k·p > b + c), normalized.
  template <unsigned K>
  __attribute__((always_inline)) static V sub2(const V& a, const V& b, const V& c) {
    V r;
#pragma GCC unroll 16
    for (size_t i = 0; i < L; ++i)
      r.l[i] = _mm512_sub_epi64(
          _mm512_sub_epi64(_mm512_add_epi64(a.l[i], _mm512_set1_epi64(int64_t(kKP<K>[i]))), b.l[i]),
          c.l[i]);
    normalize(r);
    return r;
  }

 private:
  static constexpr std::array<uint64_t, L> kP = kp(1);
  template <unsigned K>
  static constexpr std::array<uint64_t, L> kKP = kp(K);
  static constexpr uint64_t kLastMask = (uint64_t(1) << (52 - S)) - 1;

  // t += a·b (2L limbs, each below 2^52 per product: the 64-bit lanes hold 4L of them).
  __attribute__((always_inline)) static void product(__m512i* t, const V& a, const V& b) {
#pragma GCC unroll 16
    for (size_t i = 0; i < L; ++i) {
#pragma GCC unroll 16
      for (size_t j = 0; j < L; ++j) {
        t[i + j] = _mm512_madd52lo_epu64(t[i + j], a.l[i], b.l[j]);
        t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], a.l[i], b.l[j]);
      }
    }
  }
  // t·R^-1 mod p for t < R·p·(a few): L - 1 reduction rounds of 52 bits, one of 52 - S.
  __attribute__((always_inline)) static V reduce(__m512i* t) {
    const __m512i mask = _mm512_set1_epi64(int64_t(M52));
    const __m512i inv = _mm512_set1_epi64(int64_t(F::INV & M52));
#pragma GCC unroll 16
    for (size_t i = 0; i < L; ++i) {
      // Limb i to 52 bits (its excess joins limb i+1), then m = -t_i/p mod 2^52 (mod 2^(52-S)
      // in the last round) and t += m·p·2^(52i), which clears the low bits of limb i.
      t[i + 1] = _mm512_add_epi64(t[i + 1], _mm512_srli_epi64(t[i], 52));
      t[i] = _mm512_and_si512(t[i], mask);
      __m512i m = _mm512_madd52lo_epu64(_mm512_setzero_si512(), t[i], inv);
      if (i == L - 1) m = _mm512_and_si512(m, _mm512_set1_epi64(int64_t(kLastMask)));
#pragma GCC unroll 16
      for (size_t j = 0; j < L; ++j) {
        t[i + j] = _mm512_madd52lo_epu64(t[i + j], m, _mm512_set1_epi64(int64_t(kP[j])));
        t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], m, _mm512_set1_epi64(int64_t(kP[j])));
      }
      if (i + 1 < L) t[i + 1] = _mm512_add_epi64(t[i + 1], _mm512_srli_epi64(t[i], 52));
    }
    // The value is (t[L-1] + t[L]·2^52 + ...) >> (52 - S): carries from limb L-1 up, then the
    // shift across limbs.
#pragma GCC unroll 16
    for (size_t i = L - 1; i + 1 < 2 * L; ++i) {
      t[i + 1] = _mm512_add_epi64(t[i + 1], _mm512_srli_epi64(t[i], 52));
      t[i] = _mm512_and_si512(t[i], mask);
    }
    V r;
#pragma GCC unroll 16
    for (size_t i = 0; i < L; ++i) {
      const __m512i hi = _mm512_slli_epi64(t[L + i], S);
      r.l[i] = _mm512_or_si512(_mm512_srli_epi64(t[L - 1 + i], 52 - S),
                               i + 1 < L ? _mm512_and_si512(hi, mask) : hi);
    }
    return r;
  }

  // Carries between limbs, signed (limbs of a difference may be negative on the way); the top
  // limb keeps what is left, non-negative for a non-negative value.
  __attribute__((always_inline)) static void normalize(V& r) {
    const __m512i mask = _mm512_set1_epi64(int64_t(M52));
#pragma GCC unroll 16
    for (size_t i = 0; i + 1 < L; ++i) {
      r.l[i + 1] = _mm512_add_epi64(r.l[i + 1], _mm512_srai_epi64(r.l[i], 52));
      r.l[i] = _mm512_and_si512(r.l[i], mask);
    }
  }
  // Row-major words (lane l's N words at rows[l] + off) to w[k] = word k of every lane, and back.
  // Blocks of four words: lanes l and l + 4 share a register, unpack pairs the words of adjacent
  // lanes, and one two-source permute per output collects a word of all eight (the same two
  // index vectors serve both directions); a last block of two words (N = 6) takes one
  // two-source permute per word.
  static_assert(N % 2 == 0, "rows are read in blocks of four and two words");
  __attribute__((always_inline)) static __m256i load256(const char* p) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  }
  __attribute__((always_inline)) static __m128i load128(const char* p) {
    return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  }
  __attribute__((always_inline)) static __m512i perm_lo() {
    return _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0);
  }
  __attribute__((always_inline)) static __m512i perm_hi() {
    return _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2);
  }
  __attribute__((always_inline)) static void rows_to_words(const char* const* rows, size_t off,
                                                          __m512i* w) {
    size_t k = 0;
#pragma GCC unroll 4
    for (; k + 4 <= N; k += 4) {
      __m512i z[4];  // z[i] = [lane i | lane i + 4], words k..k+3
#pragma GCC unroll 4
      for (size_t i = 0; i < 4; ++i)
        z[i] = _mm512_inserti64x4(_mm512_castsi256_si512(load256(rows[i] + off + 8 * k)),
                                  load256(rows[i + 4] + off + 8 * k), 1);
      const __m512i t0 = _mm512_unpacklo_epi64(z[0], z[1]), t1 = _mm512_unpackhi_epi64(z[0], z[1]);
      const __m512i t2 = _mm512_unpacklo_epi64(z[2], z[3]), t3 = _mm512_unpackhi_epi64(z[2], z[3]);
      w[k] = _mm512_permutex2var_epi64(t0, perm_lo(), t2);
      w[k + 1] = _mm512_permutex2var_epi64(t1, perm_lo(), t3);
      w[k + 2] = _mm512_permutex2var_epi64(t0, perm_hi(), t2);
      w[k + 3] = _mm512_permutex2var_epi64(t1, perm_hi(), t3);
    }
    if constexpr (N % 4 == 2) {
      __m512i z[2];  // lanes 0-3 and 4-7, words k, k+1
#pragma GCC unroll 2
      for (size_t h = 0; h < 2; ++h) {
        const char* const* r = rows + 4 * h;
        z[h] = _mm512_castsi128_si512(load128(r[0] + off + 8 * k));
        z[h] = _mm512_inserti64x2(z[h], load128(r[1] + off + 8 * k), 1);
        z[h] = _mm512_inserti64x2(z[h], load128(r[2] + off + 8 * k), 2);
        z[h] = _mm512_inserti64x2(z[h], load128(r[3] + off + 8 * k), 3);
      }
      w[k] = _mm512_permutex2var_epi64(z[0], _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0), z[1]);
      w[k + 1] = _mm512_permutex2var_epi64(z[0], _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1), z[1]);
    }
  }
  __attribute__((always_inline)) static void words_to_rows(const __m512i* w, char* const* rows,
                                                          size_t off) {
    const auto put256 = [](char* p, __m256i v) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v);
    };
    size_t k = 0;
#pragma GCC unroll 4
    for (; k + 4 <= N; k += 4) {
      // t0/t2: words (k, k+1)/(k+2, k+3) of lanes 0, 2, 4, 6; t1/t3: of lanes 1, 3, 5, 7.
      const __m512i t0 = _mm512_unpacklo_epi64(w[k], w[k + 1]);
      const __m512i t1 = _mm512_unpackhi_epi64(w[k], w[k + 1]);
      const __m512i t2 = _mm512_unpacklo_epi64(w[k + 2], w[k + 3]);
      const __m512i t3 = _mm512_unpackhi_epi64(w[k + 2], w[k + 3]);
      const __m512i u[4] = {_mm512_permutex2var_epi64(t0, perm_lo(), t2),   // lanes 0 | 4
                            _mm512_permutex2var_epi64(t1, perm_lo(), t3),   // lanes 1 | 5
                            _mm512_permutex2var_epi64(t0, perm_hi(), t2),   // lanes 2 | 6
                            _mm512_permutex2var_epi64(t1, perm_hi(), t3)};  // lanes 3 | 7
#pragma GCC unroll 4
      for (size_t i = 0; i < 4; ++i) {
        put256(rows[i] + off + 8 * k, _mm512_castsi512_si256(u[i]));
        put256(rows[i + 4] + off + 8 * k, _mm512_extracti64x4_epi64(u[i], 1));
      }
    }
    if constexpr (N % 4 == 2) {
      const __m512i z[2] = {
          _mm512_permutex2var_epi64(w[k], _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0), w[k + 1]),
          _mm512_permutex2var_epi64(w[k], _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4), w[k + 1])};
#pragma GCC unroll 2
      for (size_t h = 0; h < 2; ++h) {
        char* const* r = rows + 4 * h;
        _mm_storeu_si128(reinterpret_cast<__m128i*>(r[0] + off + 8 * k), _mm512_castsi512_si128(z[h]));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(r[1] + off + 8 * k), _mm512_extracti64x2_epi64(z[h], 1));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(r[2] + off + 8 * k), _mm512_extracti64x2_epi64(z[h], 2));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(r[3] + off + 8 * k), _mm512_extracti64x2_epi64(z[h], 3));
      }
    }
  }
  // 64-bit words (value < 2^(64N)) to 52-bit limbs and back.
  __attribute__((always_inline)) static V from_words(const __m512i* w) {
    const __m512i mask = _mm512_set1_epi64(int64_t(M52));
    V r;
#pragma GCC unroll 16
    for (size_t i = 0; i < L; ++i) {
      const size_t bit = 52 * i, q = bit / 64, s = bit % 64;
      __m512i v = _mm512_srli_epi64(w[q], unsigned(s));
      if (q + 1 < N && s > 12) v = _mm512_or_si512(v, _mm512_slli_epi64(w[q + 1], unsigned(64 - s)));
      r.l[i] = i + 1 < L ? _mm512_and_si512(v, mask) : v;
    }
    return r;
  }
  __attribute__((always_inline)) static void to_words(const V& a, __m512i* w) {
#pragma GCC unroll 8
    for (size_t k = 0; k < N; ++k) {
      __m512i v = _mm512_setzero_si512();
#pragma GCC unroll 16
      for (size_t i = 0; i < L; ++i) {
        const long shift = long(52 * i) - long(64 * k);  // where limb i lands in word k
        if (shift <= -52 || shift >= 64) continue;
        v = _mm512_or_si512(v, shift >= 0 ? _mm512_slli_epi64(a.l[i], unsigned(shift))
                                          : _mm512_srli_epi64(a.l[i], unsigned(-shift)));
      }
      w[k] = v;
    }
  }
};
#endif

// What the batch-affine sums need of a coordinate field in lanes (eight elements at a time), for
// a prime field with the kernel and for its quadratic extension Fp2 = Fp[u]/(u^2 + 1):
//   load(rows, off), store(a, rows, off)  eight elements, lane l's at rows[l] + off bytes (as
//     stored: reduced; store reduces from below 4p);
//   sub<K>(a, b) = a - b + K·p,  sub2<K>(a, b, c) = a - b - c + K·p  (per Fp component; K·p
//     above what is subtracted);
//   mul(a, b)  with a's components below 2p and b's below 3p: the product, below 2.14p for Fp
//     ((2·3·rho + 1)p) and below 2p for Fp2 (tightened); with both below 2p, below 2p;
//   tighten(a)  from below 4p to below 2p; tighten8(a) from below 8p;
//   square(a) (a below 2p, as mul's result), add(a, b), one(), blend(mask, a, b) (lanes in mask take b), zero_mask(a) (lanes where a ≡ 0,
//     a below 2p);
//   to_scalars / from_scalars  eight reduced elements out (from below 4p) and in.
template <class F>
struct LaneOps;

// Fp2 with a lane prime field beneath it.
template <class F>
concept LaneFp2 = requires(F f) {
  typename F::Fp;
  f.c0;
  f.c1;
} && sizeof(F) == 2 * sizeof(typename F::Fp) && LaneField<typename F::Fp>;

// Whether the batch-affine sums over coordinate field F run in lanes in this build.
template <class F>
concept HasLanes = LaneField<F> || LaneFp2<F>;

#if SPLITPROVE_IFMA
template <LaneField F>
struct LaneOps<F> {
  using K = Lanes8<F>;
  using V = typename K::V;
  __attribute__((always_inline)) static V load(const char* const* rows, size_t off) {
    return K::load_rows(rows, off);
  }
  __attribute__((always_inline)) static void store(const V& a, char* const* rows, size_t off) {
    K::store_rows(a, rows, off);
  }
  template <unsigned Kp>
  __attribute__((always_inline)) static V sub(const V& a, const V& b) {
    return K::template sub<Kp>(a, b);
  }
  template <unsigned Kp>
  __attribute__((always_inline)) static V sub2(const V& a, const V& b, const V& c) {
    return K::template sub2<Kp>(a, b, c);
  }
  __attribute__((always_inline)) static V mul(const V& a, const V& b) { return K::mul(a, b); }
  __attribute__((always_inline)) static V square(const V& a) { return K::mul(a, a); }
  __attribute__((always_inline)) static V tighten(V a) {
    K::template cond_sub<2>(a);
    return a;
  }
  __attribute__((always_inline)) static V tighten8(V a) {
    K::template cond_sub<4>(a);
    K::template cond_sub<2>(a);
    return a;
  }
  __attribute__((always_inline)) static V add(const V& a, const V& b) { return K::add(a, b); }
  __attribute__((always_inline)) static V one() { return K::splat(F::one()); }
  __attribute__((always_inline)) static V blend(__mmask8 m, const V& a, const V& b) {
    return K::blend(m, a, b);
  }
  __attribute__((always_inline)) static __mmask8 zero_mask(const V& a) { return K::zero_mask(a); }
  __attribute__((always_inline)) static void to_scalars(const V& a, F* out) {
    char* rows[8];
    for (size_t l = 0; l < 8; ++l) rows[l] = reinterpret_cast<char*>(out + l);
    K::store_rows(a, rows, 0);
  }
  __attribute__((always_inline)) static V from_scalars(const F* in) { return K::load8(in); }
};

template <LaneFp2 F>
struct LaneOps<F> {
  using Fp = typename F::Fp;
  using K = Lanes8<Fp>;
  using B = LaneOps<Fp>;
  struct V {
    typename K::V c0, c1;
  };
  __attribute__((always_inline)) static V load(const char* const* rows, size_t off) {
    return {K::load_rows(rows, off), K::load_rows(rows, off + sizeof(Fp))};
  }
  __attribute__((always_inline)) static void store(const V& a, char* const* rows, size_t off) {
    K::store_rows(a.c0, rows, off);
    K::store_rows(a.c1, rows, off + sizeof(Fp));
  }
  template <unsigned Kp>
  __attribute__((always_inline)) static V sub(const V& a, const V& b) {
    return {K::template sub<Kp>(a.c0, b.c0), K::template sub<Kp>(a.c1, b.c1)};
  }
  template <unsigned Kp>
  __attribute__((always_inline)) static V sub2(const V& a, const V& b, const V& c) {
    return {K::template sub2<Kp>(a.c0, b.c0, c.c0), K::template sub2<Kp>(a.c1, b.c1, c.c1)};
  }
  // c0 = a0·b0 - a1·b1 = a0·b0 + (2p - a1)·b1 (mod p), c1 = a0·b1 + a1·b0: two products and one
  // reduction each. With a's components below 2p and b's below 3p: c0 below ((2 + 2)·3·rho + 1)p
  // and c1 below (2·2·3·rho + 1)p, i.e. 3.28p at rho = 0.19; then tightened below 2p.
  __attribute__((always_inline)) static V mul(const V& a, const V& b) {
    const typename K::V na1 = K::template sub<2>(K::zero(), a.c1);
    V r{K::mul_sum(a.c0, b.c0, na1, b.c1), K::mul_sum(a.c0, b.c1, a.c1, b.c0)};
    K::template cond_sub<2>(r.c0);
    K::template cond_sub<2>(r.c1);
    return r;
  }
  // a^2 as c0 = (a0 + a1)·(a0 + 2p - a1), c1 = (2·a0)·a1: two products and two reductions where
  // mul takes four and two. With a's components below 2p the factors of c0 are below 4p, so c0 is
  // below (16·rho + 1)p = 4.04p and tightened twice; c1 is below (8·rho + 1)p = 2.52p and
  // tightened once: both below 2p, as mul's.
  __attribute__((always_inline)) static V square(const V& a) {
    V r{K::mul(K::add(a.c0, a.c1), K::template sub<2>(a.c0, a.c1)),
        K::mul(K::add(a.c0, a.c0), a.c1)};
    K::template cond_sub<4>(r.c0);
    K::template cond_sub<2>(r.c0);
    K::template cond_sub<2>(r.c1);
    return r;
  }
  __attribute__((always_inline)) static V tighten(V a) { return {B::tighten(a.c0), B::tighten(a.c1)}; }
  __attribute__((always_inline)) static V tighten8(V a) {
    return {B::tighten8(a.c0), B::tighten8(a.c1)};
  }
  __attribute__((always_inline)) static V add(const V& a, const V& b) {
    return {K::add(a.c0, b.c0), K::add(a.c1, b.c1)};
  }
  __attribute__((always_inline)) static V one() { return {B::one(), K::zero()}; }
  __attribute__((always_inline)) static V blend(__mmask8 m, const V& a, const V& b) {
    return {K::blend(m, a.c0, b.c0), K::blend(m, a.c1, b.c1)};
  }
  __attribute__((always_inline)) static __mmask8 zero_mask(const V& a) {
    return K::zero_mask(a.c0) & K::zero_mask(a.c1);
  }
  __attribute__((always_inline)) static void to_scalars(const V& a, F* out) {
    char* rows[8];
    for (size_t l = 0; l < 8; ++l) rows[l] = reinterpret_cast<char*>(out + l);
    store(a, rows, 0);
  }
  __attribute__((always_inline)) static V from_scalars(const F* in) {
    const char* rows[8];
    for (size_t l = 0; l < 8; ++l) rows[l] = reinterpret_cast<const char*>(in + l);
    return load(rows, 0);
  }
};
#endif

}  // namespace splitprove::ff

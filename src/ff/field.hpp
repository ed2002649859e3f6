#pragma once
// A prime field in Montgomery form over N 64-bit limbs, written once and instantiated per curve by
// a parameter struct:
//
//   struct P {
//     static constexpr size_t N;                  // limbs
//     static constexpr Limbs<N> modulus;          // p, odd, with p < 2^(64N-1) - 1 (one spare bit)
//     static constexpr const char* name;          // for error messages ("bls12_381 Fp")
//   };
//
// Every other constant (R = 2^(64N) mod p, R^2 mod p, -p^-1 mod 2^64, exponents) is derived
// at compile time. Elements hold x·R mod p, fully reduced (< p) at all times.
// (Over 600 lines on purpose: the one field template every curve instantiates; its Montgomery
// product in two paths, mulx/adx and portable, side by side so that they are read and tested
// together, its compile-time constants and their checks belong together; splitting them would
// split the invariants each relies on.)
//
// Multiplication is CIOS Montgomery with the "spare bit" shortcut (Acar's CIOS with the
// carry-free final step, valid when the top limb of p is below 2^63 - 1): it saves one carry word
// per outer iteration. The loops have constant bounds and no data-dependent branches; the final
// conditional subtraction is a masked select.
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <type_traits>

#include "ff/bigint.hpp"

#if defined(__x86_64__)
#include <x86intrin.h>
#define SPLITPROVE_X86 1
#endif

// The mulx/adcx/adox Montgomery kernel (Field::mont_mul_adx): x86-64 with BMI2 and ADX enabled at
// compile time (-march=native on such a machine, or -mbmi2 -madx), in optimised builds (at -O0
// every memory operand of the asm gets its own address register and 15 are not enough), unless
// SPLITPROVE_PORTABLE_FF asks for the portable C++ kernel everywhere.
#if defined(__x86_64__) && defined(__BMI2__) && defined(__ADX__) && defined(__OPTIMIZE__) && \
    !defined(SPLITPROVE_PORTABLE_FF)
#define SPLITPROVE_ADX 1
// One step of a row of mont_mul_adx (AT&T operand order: mulx src, lo, hi).
//   MA: t_j += lo(a_j·rdx) on the OF chain, t_k += hi(a_j·rdx) on the CF chain (k = j + 1).
//   RD: the same with p_j·rdx, the chains swapped (CF takes lo, OF takes hi).
//   *_TOP: the last limb, whose hi goes to A; both chains end in A (lo is reused as a zero:
//   mov leaves the flags alone).
#define SPLITPROVE_MA(j, k)                     \
  "mulxq 8*" #j "(%[ap]), %[lo], %[hi]\n\t"         \
  "adoxq %[lo], %[t" #j "]\n\t"                \
  "adcxq %[hi], %[t" #k "]\n\t"
#define SPLITPROVE_MA_TOP(j)                    \
  "mulxq 8*" #j "(%[ap]), %[lo], %[A]\n\t"          \
  "adoxq %[lo], %[t" #j "]\n\t"                \
  "movl $0, %k[lo]\n\t"                        \
  "adcxq %[lo], %[A]\n\t"                      \
  "adoxq %[lo], %[A]\n\t"
// Row 0 of a product, where t = 0: t_j = lo(a_j·rdx) written directly, hi joins t_{j+1} on the CF
// chain alone (FIRST0 starts it, FIRST(j, k) continues, FIRST_TOP ends it in A).
#define SPLITPROVE_FIRST0 "mulxq (%[ap]), %[t0], %[t1]\n\t"
#define SPLITPROVE_FIRST(j, k)                  \
  "mulxq 8*" #j "(%[ap]), %[lo], %[t" #k "]\n\t"    \
  "adcxq %[lo], %[t" #j "]\n\t"
#define SPLITPROVE_FIRST_TOP(j)                 \
  "mulxq 8*" #j "(%[ap]), %[lo], %[A]\n\t"          \
  "adcxq %[lo], %[t" #j "]\n\t"                \
  "movl $0, %k[lo]\n\t"                        \
  "adcxq %[lo], %[A]\n\t"
#define SPLITPROVE_RD(j, k)                     \
  "mulxq 8*" #j "(%[pp]), %[lo], %[hi]\n\t"         \
  "adcxq %[lo], %[t" #j "]\n\t"                \
  "adoxq %[hi], %[t" #k "]\n\t"
#define SPLITPROVE_RD_TOP(j)                    \
  "mulxq 8*" #j "(%[pp]), %[lo], %[hi]\n\t"         \
  "adcxq %[lo], %[t" #j "]\n\t"                \
  "adoxq %[hi], %[A]\n\t"                      \
  "movl $0, %k[lo]\n\t"                        \
  "adcxq %[lo], %[A]\n\t"
#else
#define SPLITPROVE_ADX 0
#endif

namespace splitprove::ff {

// -m^-1 mod 2^64 for odd m (Newton iteration doubles the correct bits each step).
constexpr uint64_t neg_inv64(uint64_t m) {
  uint64_t x = 1;
  for (int i = 0; i < 7; ++i) x *= 2 - m * x;
  return ~x + 1;
}

// 2^k mod p by repeated doubling (compile-time use only).
template <size_t N>
constexpr Limbs<N> pow2_mod(const Limbs<N>& p, size_t k) {
  Limbs<N> r = ff::from_u64<N>(1);
  for (size_t i = 0; i < k; ++i) {
    Limbs<N> t, u;
    uint64_t c = add_limbs(t, r, r);
    uint64_t b = sub_limbs(u, t, p);
    r = (c || !b) ? u : t;
  }
  return r;
}

template <class P>
class Field {
 public:
  static constexpr size_t N = P::N;
  using Repr = Limbs<N>;
  static constexpr Repr MOD = P::modulus;
  static constexpr size_t BITS = num_bits(MOD);
  static constexpr size_t BYTES = (BITS + 7) / 8;
  static_assert(MOD[0] & 1, "modulus must be odd");
  static_assert(MOD[N - 1] < (uint64_t(1) << 63) - 1, "the CIOS shortcut needs one spare bit");

 public:
  static constexpr uint64_t INV = neg_inv64(MOD[0]);  // -p^-1 mod 2^64
  static constexpr Repr R1 = pow2_mod(MOD, 64 * N);    // Montgomery form of 1
  static constexpr Repr R2 = pow2_mod(MOD, 128 * N);   // R^2 mod p, converts into Montgomery form
  static constexpr Repr R3 = pow2_mod(MOD, 192 * N);   // R^3 mod p, for inverse_vartime

  constexpr Field() : v_{} {}

  static constexpr Field zero() { return Field(); }
  static constexpr Field one() { return from_mont(R1); }
  static constexpr Field from_mont(const Repr& m) {
    Field f;
    f.v_ = m;
    return f;
  }
  // From a canonical integer; the caller guarantees x < p (use from_canonical_checked otherwise).
  static constexpr Field from_canonical(const Repr& x) { return from_mont(x) * from_mont(R2); }
  static constexpr std::optional<Field> from_canonical_checked(const Repr& x) {
    if (cmp_limbs(x, MOD) >= 0) return std::nullopt;
    return from_canonical(x);
  }
  static constexpr Field from_u64(uint64_t x) { return from_canonical(ff::from_u64<N>(x)); }
  // Reduces an arbitrary N-limb integer mod p (used for hashing/sampling; not constant time).
  static constexpr Field reduce(Repr x) {
    while (cmp_limbs(x, MOD) >= 0) sub_limbs(x, x, MOD);
    return from_canonical(x);
  }
  static Field from_hex(std::string_view s) { return from_canonical(ff::from_hex<N>(s)); }

  constexpr Repr to_canonical() const { return mont_mul(v_, ff::from_u64<N>(1)); }
  constexpr const Repr& mont() const { return v_; }
  std::string to_hex() const { return ff::to_hex(to_canonical()); }
  std::string to_decimal() const { return ff::to_decimal(to_canonical()); }

  // Canonical big-endian / little-endian bytes, exactly BYTES long. from_bytes_* return nullopt
  // when the integer is >= p (callers report "not a canonical field element").
  void to_bytes_be(uint8_t* out) const {
    Repr c = to_canonical();
    for (size_t i = 0; i < BYTES; ++i) out[BYTES - 1 - i] = uint8_t(c[i / 8] >> (8 * (i % 8)));
  }
  void to_bytes_le(uint8_t* out) const {
    Repr c = to_canonical();
    for (size_t i = 0; i < BYTES; ++i) out[i] = uint8_t(c[i / 8] >> (8 * (i % 8)));
  }
  static std::optional<Field> from_bytes_be(const uint8_t* in) {
    Repr c{};
    for (size_t i = 0; i < BYTES; ++i) c[i / 8] |= uint64_t(in[BYTES - 1 - i]) << (8 * (i % 8));
    return from_canonical_checked(c);
  }
  static std::optional<Field> from_bytes_le(const uint8_t* in) {
    Repr c{};
    for (size_t i = 0; i < BYTES; ++i) c[i / 8] |= uint64_t(in[i]) << (8 * (i % 8));
    return from_canonical_checked(c);
  }

  // Uniform sampling by rejection from BITS random bits. Rng: a UniformRandomBitGenerator of
  // 64-bit words (std::mt19937_64 in tests; an OS CSPRNG for secrets).
  template <class Rng>
  static Field random(Rng& rng) {
    for (;;) {
      Repr x{};
      for (auto& w : x) w = uint64_t(rng());
      if (BITS % 64) x[N - 1] &= (uint64_t(1) << (BITS % 64)) - 1;
      if (cmp_limbs(x, MOD) < 0) return from_mont(x);  // a uniform value is uniform in either form
    }
  }

  // mask = all ones -> b, mask = 0 -> a; no branch (constant-time table lookups).
  static constexpr Field select(const Field& a, const Field& b, uint64_t mask) {
    Field r;
    for (size_t i = 0; i < N; ++i) r.v_[i] = (a.v_[i] & ~mask) | (b.v_[i] & mask);
    return r;
  }

  constexpr bool is_zero() const { return is_zero_limbs(v_); }
  constexpr bool is_one() const { return v_ == R1; }
  friend constexpr bool operator==(const Field& a, const Field& b) { return a.v_ == b.v_; }

  friend constexpr Field operator+(const Field& a, const Field& b) {
    Field r;
    add_mod(r.v_, a.v_, b.v_);
    return r;
  }
  friend constexpr Field operator-(const Field& a, const Field& b) {
    Field r;
    uint64_t borrow = sub_rt(r.v_, a.v_, b.v_);
    Repr m;
    const uint64_t mask = 0 - borrow;
    for (size_t i = 0; i < N; ++i) m[i] = MOD[i] & mask;
    add_rt(r.v_, r.v_, m);
    return r;
  }
  constexpr Field operator-() const { return zero() - *this; }
  friend constexpr Field operator*(const Field& a, const Field& b) {
    return from_mont(mont_mul(a.v_, b.v_));
  }
  Field& operator+=(const Field& b) { return *this = *this + b; }
  Field& operator-=(const Field& b) { return *this = *this - b; }
  Field& operator*=(const Field& b) { return *this = *this * b; }

  constexpr Field dbl() const { return *this + *this; }
  constexpr Field square() const { return from_mont(mont_sqr(v_)); }

  // a^e for a public exponent given as limbs (square-and-multiply, left to right).
  template <size_t M>
  constexpr Field pow(const Limbs<M>& e) const {
    Field r = one();
    for (size_t i = num_bits(e); i-- > 0;) {
      r = r.square();
      if (bit(e, i)) r = r * *this;
    }
    return r;
  }
  constexpr Field pow(uint64_t e) const { return pow(Limbs<1>{e}); }

  // Multiplicative inverse by Fermat (a^(p-2)); the inverse of zero is zero. Constant time.
  constexpr Field inverse() const { return pow(P_MINUS_2); }

  // The same inverse by the binary extended Euclidean algorithm (HAC 14.61), whose running time
  // depends on the value: for public data only (pairing inputs, decoded points). About 6x faster
  // than Fermat for BLS12-381 Fp (~2·381 halvings and ~381 subtractions instead of ~570 products).
  // On the raw Montgomery value u = aR it computes u^-1, then u^-1·R^3·R^-1 = a^-1·R.
  Field inverse_vartime() const {
    if (is_zero()) return *this;
    Repr u = v_, v = MOD, x1 = ff::from_u64<N>(1), x2{};
    auto halve = [](Repr& a, Repr& xa) {  // a even: a/2, and xa/2 mod p (xa + p fits: spare bit)
      a = shr(a, 1);
      if (xa[0] & 1) add_rt(xa, xa, MOD);
      xa = shr(xa, 1);
    };
    auto is_one_raw = [](const Repr& a) { return a == ff::from_u64<N>(1); };
    while (!is_one_raw(u) && !is_one_raw(v)) {
      while (!(u[0] & 1)) halve(u, x1);
      while (!(v[0] & 1)) halve(v, x2);
      if (cmp_limbs(u, v) >= 0) {
        sub_rt(u, u, v);
        if (sub_rt(x1, x1, x2)) add_rt(x1, x1, MOD);
      } else {
        sub_rt(v, v, u);
        if (sub_rt(x2, x2, x1)) add_rt(x2, x2, MOD);
      }
    }
    return from_mont(mont_mul(is_one_raw(u) ? x1 : x2, R3));
  }

  // x/2: (aR)/2 = (a/2)R, so add p when the raw value is odd (no carry out: spare bit) and shift.
  // Branch-free; a few additions instead of a product by 1/2.
  constexpr Field half() const {
    Repr m, t;
    const uint64_t mask = 0 - (v_[0] & 1);
    for (size_t i = 0; i < N; ++i) m[i] = MOD[i] & mask;
    add_rt(t, v_, m);
    return from_mont(shr(t, 1));
  }

  // Legendre symbol: 1 for a non-zero square, -1 for a non-square, 0 for zero.
  int legendre() const {
    if (is_zero()) return 0;
    return pow(P_MINUS_1_HALF).is_one() ? 1 : -1;
  }

  // A square root when one exists. p = 3 mod 4: a^((p+1)/4). Otherwise Tonelli-Shanks with
  // p - 1 = 2^S·T and the smallest non-residue.
  std::optional<Field> sqrt() const {
    if (is_zero()) return zero();
    Field x;
    if constexpr ((MOD[0] & 3) == 3) {
      x = pow(P_PLUS_1_QUARTER);
    } else {
      const Field z = smallest_non_residue().pow(T);
      unsigned m = S;
      Field c = z;
      Field t = pow(T);
      x = pow(T_PLUS_1_HALF);
      while (!t.is_one()) {
        unsigned i = 0;
        Field t2 = t;
        while (!t2.is_one()) {
          t2 = t2.square();
          if (++i == m) return std::nullopt;  // non-residue
        }
        Field b = c;
        for (unsigned j = 0; j + i + 1 < m; ++j) b = b.square();
        m = i;
        c = b.square();
        t = t * c;
        x = x * b;
      }
    }
    if (x.square() == *this) return x;
    return std::nullopt;
  }

  // The primitive 2^k-th root of unity of the snarkjs/ffjavascript convention (k <= S):
  // w[S] = g^T for the smallest non-residue g, w[k] = w[k+1]^2.
  static Field root_of_unity(unsigned k) {
    static const Field w_s = smallest_non_residue().pow(T);
    Field w = w_s;
    for (unsigned i = S; i > k; --i) w = w.square();
    return w;
  }

  // The smallest g >= 2 that is a quadratic non-residue (2-adic structure, NTT roots).
  static Field smallest_non_residue() {
    for (uint64_t g = 2;; ++g)
      if (from_u64(g).legendre() == -1) return from_u64(g);
  }

  // p - 1 = 2^S · T with T odd.
  static constexpr Repr P_MINUS_1 = [] {
    Repr r = MOD;
    r[0] -= 1;
    return r;
  }();
  static constexpr unsigned S = [] {
    unsigned s = 0;
    while (!bit(P_MINUS_1, s)) ++s;
    return s;
  }();
  static constexpr Repr T = shr(P_MINUS_1, S);

  // Raw Montgomery kernels (also used by vectorised/batched code). At run time on x86-64 with
  // BMI2 and ADX, N = 4 and N = 6 use the mulx/adcx/adox kernel below; everything else (constant
  // evaluation, other limb counts, other targets) uses the portable CIOS loop.
  __attribute__((always_inline)) static constexpr Repr mont_mul(const Repr& a, const Repr& b) {
#if SPLITPROVE_ADX
    if constexpr (N == 4 || N == 6) {
      if (!std::is_constant_evaluated()) return mont_mul_adx(a, b);
    }
#endif
    return mont_mul_portable(a, b);
  }
  // a^2 as the product a·a. A dedicated squaring (the cross products once, doubled, plus the
  // diagonal, then one reduction: 57 instead of 72 word products for 6 limbs) was measured slower
  // than this CIOS product on the mulx/adcx/adox path (6 limbs 59 against 41 ns, 4 limbs 23
  // against 22 ns; its serial carry chains outweigh the saved products) and on the portable path,
  // so it is not used (`git show 8b38ce2:bench/RESULTS.md`, "CPU prover speed, branch cpu3").
  __attribute__((always_inline)) static constexpr Repr mont_sqr(const Repr& a) {
    return mont_mul(a, a);
  }

  __attribute__((always_inline)) static constexpr Repr mont_mul_portable(const Repr& a,
                                                                         const Repr& b) {
    Repr t{};
#pragma GCC unroll 8
    for (size_t i = 0; i < N; ++i) {
      u128 x = u128(a[0]) * b[i] + t[0];
      uint64_t A = uint64_t(x >> 64);
      const uint64_t m = uint64_t(x) * INV;
      u128 y = u128(m) * MOD[0] + uint64_t(x);
      uint64_t C = uint64_t(y >> 64);
#pragma GCC unroll 8
      for (size_t j = 1; j < N; ++j) {
        x = u128(a[j]) * b[i] + t[j] + A;
        A = uint64_t(x >> 64);
        y = u128(m) * MOD[j] + uint64_t(x) + C;
        C = uint64_t(y >> 64);
        t[j - 1] = uint64_t(y);
      }
      t[N - 1] = C + A;
    }
    reduce_once(t);
    return t;
  }

  // Double-width products for lazy reduction (Fp2 products: three wide products, two reductions).
  using Wide = Limbs<2 * N>;
  // The 2N-limb integer a·b (a, b < 2^(64N); no reduction).
  __attribute__((always_inline)) static Wide mul_wide(const Repr& a, const Repr& b) {
#if SPLITPROVE_ADX
    if constexpr (N == 4 || N == 6) return mul_wide_adx(a, b);
#endif
    Wide r{};
    for (size_t i = 0; i < N; ++i) {
      uint64_t c = 0;
      for (size_t j = 0; j < N; ++j) {
        const u128 x = u128(a[j]) * b[i] + r[i + j] + c;
        r[i + j] = uint64_t(x);
        c = uint64_t(x >> 64);
      }
      r[i + N] = c;
    }
    return r;
  }
  // T·R^-1 mod p, fully reduced, for T < p·R. With T = hi·R + lo: T·R^-1 = hi + lo·R^-1, and
  // (lo + m·p)/R <= p for the Montgomery multiple m < R, so hi + that is below 2p (hi < p).
  __attribute__((always_inline)) static Repr redc(const Wide& T) {
    Repr t, hi;
    for (size_t i = 0; i < N; ++i) t[i] = T[i], hi[i] = T[N + i];
#if SPLITPROVE_ADX
    if constexpr (N == 4 || N == 6) {
      t = redc_lo_adx(t);
    } else
#endif
      t = redc_lo_portable(t);
    add_rt(t, t, hi);
    reduce_once(t);
    return t;
  }
  // Reduction rows alone: (lo + m·p)/R, at most p.
  __attribute__((always_inline)) static Repr redc_lo_portable(Repr t) {
#pragma GCC unroll 8
    for (size_t i = 0; i < N; ++i) {
      const uint64_t m = t[0] * INV;
      u128 y = u128(m) * MOD[0] + t[0];
      uint64_t C = uint64_t(y >> 64);
#pragma GCC unroll 8
      for (size_t j = 1; j < N; ++j) {
        y = u128(m) * MOD[j] + t[j] + C;
        t[j - 1] = uint64_t(y);
        C = uint64_t(y >> 64);
      }
      t[N - 1] = C;
    }
    return t;
  }
  // a + b as integers, not reduced (below 2p < 2^(64N) for a, b < p: the spare bit).
  static Repr add_unreduced(const Repr& a, const Repr& b) {
    Repr r;
    add_rt(r, a, b);
    return r;
  }
  // r = a ± b over 2N limbs; returns the carry / borrow.
  static uint64_t add_wide(Wide& r, const Wide& a, const Wide& b) { return add_rt(r, a, b); }
  static uint64_t sub_wide(Wide& r, const Wide& a, const Wide& b) { return sub_rt(r, a, b); }
  // T + p·R (for a wide difference that went below zero).
  static void add_p_high(Wide& T) {
    Repr h;
    for (size_t i = 0; i < N; ++i) h[i] = T[N + i];
    add_rt(h, h, MOD);
    for (size_t i = 0; i < N; ++i) T[N + i] = h[i];
  }

#if SPLITPROVE_ADX
  // The same CIOS product with two independent carry chains per row (adcx: CF, adox: OF), as
  // x86-64 BMI2/ADX allows. Row i, in two asm blocks so that no flag crosses a block boundary:
  //   1. (A:t) += a·b_i          mulx a_j·b_i = hi:lo; lo joins t_j on the OF chain, hi joins
  //                              t_{j+1} on the CF chain; A (the limb above t) takes both ends.
  //   2. m = t_0·(-p^-1) mod 2^64 (plain C), then (A:t) += m·p, which clears t_0 (the same
  //      two-chain pattern), and t ← (A:t) / 2^64 — the shift is a renaming of C variables.
  // The bound is the portable loop's: with one spare bit in p the value after step 2 is below
  // 2·p·2^64 < 2^(64(N+1)), so neither chain carries out of A.
  // (A:t) = t + a·bi for 6 limbs; row 0 (t = 0) writes t directly on one carry chain.
  __attribute__((always_inline)) static void product_row6(size_t i, uint64_t bi, const Repr& a,
                                                          uint64_t& t0, uint64_t& t1,
                                                          uint64_t& t2, uint64_t& t3,
                                                          uint64_t& t4, uint64_t& t5,
                                                          uint64_t& A) {
    uint64_t lo, hi;
    if (i == 0) {
      asm("xorl %k[lo], %k[lo]\n\t" SPLITPROVE_FIRST0 SPLITPROVE_FIRST(1, 2) SPLITPROVE_FIRST(2, 3)
          SPLITPROVE_FIRST(3, 4)
          SPLITPROVE_FIRST(4, 5) SPLITPROVE_FIRST_TOP(5)
          : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
            [t5] "=&r"(t5), [A] "=&r"(A), [lo] "=&r"(lo)
          : "d"(bi), [ap] "r"(a.data()), "m"(a)
          : "cc");
    } else {
      asm("xorl %k[lo], %k[lo]\n\t"
          SPLITPROVE_MA(0, 1) SPLITPROVE_MA(1, 2) SPLITPROVE_MA(2, 3) SPLITPROVE_MA(3, 4)
          SPLITPROVE_MA(4, 5) SPLITPROVE_MA_TOP(5)
          : [t0] "+r"(t0), [t1] "+r"(t1), [t2] "+r"(t2), [t3] "+r"(t3), [t4] "+r"(t4),
            [t5] "+r"(t5), [A] "=&r"(A), [lo] "=&r"(lo), [hi] "=&r"(hi)
          : "d"(bi), [ap] "r"(a.data()), "m"(a)
          : "cc");
    }
  }
  // The same for 4 limbs. Shared by mont_mul_adx and mul_wide_adx.
  __attribute__((always_inline)) static void product_row4(size_t i, uint64_t bi, const Repr& a,
                                                          uint64_t& t0, uint64_t& t1,
                                                          uint64_t& t2, uint64_t& t3,
                                                          uint64_t& A) {
    uint64_t lo, hi;
    if (i == 0) {
      asm("xorl %k[lo], %k[lo]\n\t" SPLITPROVE_FIRST0 SPLITPROVE_FIRST(1, 2)
          SPLITPROVE_FIRST(2, 3) SPLITPROVE_FIRST_TOP(3)
          : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [A] "=&r"(A),
            [lo] "=&r"(lo)
          : "d"(bi), [ap] "r"(a.data()), "m"(a)
          : "cc");
    } else {
      asm("xorl %k[lo], %k[lo]\n\t"
          SPLITPROVE_MA(0, 1) SPLITPROVE_MA(1, 2) SPLITPROVE_MA(2, 3) SPLITPROVE_MA_TOP(3)
          : [t0] "+r"(t0), [t1] "+r"(t1), [t2] "+r"(t2), [t3] "+r"(t3), [A] "=&r"(A),
            [lo] "=&r"(lo), [hi] "=&r"(hi)
          : "d"(bi), [ap] "r"(a.data()), "m"(a)
          : "cc");
    }
  }
  // One reduction row: (A:t) += m·p, which clears t_0 (the caller then shifts by renaming).
  // Shared by mont_mul_adx and redc_lo_adx.
  __attribute__((always_inline)) static void reduction_row6(uint64_t m, uint64_t& t0,
                                                            uint64_t& t1, uint64_t& t2,
                                                            uint64_t& t3, uint64_t& t4,
                                                            uint64_t& t5, uint64_t& A) {
    uint64_t lo, hi;
    asm("xorl %k[lo], %k[lo]\n\t"
        SPLITPROVE_RD(0, 1) SPLITPROVE_RD(1, 2) SPLITPROVE_RD(2, 3) SPLITPROVE_RD(3, 4)
        SPLITPROVE_RD(4, 5) SPLITPROVE_RD_TOP(5)
        : [t0] "+r"(t0), [t1] "+r"(t1), [t2] "+r"(t2), [t3] "+r"(t3), [t4] "+r"(t4),
          [t5] "+r"(t5), [A] "+r"(A), [lo] "=&r"(lo), [hi] "=&r"(hi)
        : "d"(m), [pp] "r"(MOD.data()), "m"(MOD)
        : "cc");
  }
  __attribute__((always_inline)) static void reduction_row4(uint64_t m, uint64_t& t0,
                                                            uint64_t& t1, uint64_t& t2,
                                                            uint64_t& t3, uint64_t& A) {
    uint64_t lo, hi;
    asm("xorl %k[lo], %k[lo]\n\t"
        SPLITPROVE_RD(0, 1) SPLITPROVE_RD(1, 2) SPLITPROVE_RD(2, 3) SPLITPROVE_RD_TOP(3)
        : [t0] "+r"(t0), [t1] "+r"(t1), [t2] "+r"(t2), [t3] "+r"(t3), [A] "+r"(A),
          [lo] "=&r"(lo), [hi] "=&r"(hi)
        : "d"(m), [pp] "r"(MOD.data()), "m"(MOD)
        : "cc");
  }
  __attribute__((always_inline)) static Repr mont_mul_adx(const Repr& a, const Repr& b) {
    // Scalars, not an array: the per-row shift must stay a renaming of registers (an array is
    // shifted through memory by the optimiser).
    uint64_t t0 = 0, t1 = 0, t2 = 0, t3 = 0, t4 = 0, t5 = 0;
#pragma GCC unroll 8
    for (size_t i = 0; i < N; ++i) {
      uint64_t A;
      if constexpr (N == 6) {
        product_row6(i, b[i], a, t0, t1, t2, t3, t4, t5, A);
        reduction_row6(t0 * INV, t0, t1, t2, t3, t4, t5, A);
        t0 = t1, t1 = t2, t2 = t3, t3 = t4, t4 = t5, t5 = A;
      } else {
        product_row4(i, b[i], a, t0, t1, t2, t3, A);
        reduction_row4(t0 * INV, t0, t1, t2, t3, A);
        t0 = t1, t1 = t2, t2 = t3, t3 = A;
      }
    }
    Repr r;
    if constexpr (N == 6)
      r = {t0, t1, t2, t3, t4, t5};
    else
      r = {t0, t1, t2, t3};
    reduce_once(r);
    return r;
  }
  // Product rows alone: limb i of the result leaves the window after row i.
  __attribute__((always_inline)) static Wide mul_wide_adx(const Repr& a, const Repr& b) {
    static_assert(N == 4 || N == 6);
    Wide r;
    if constexpr (N == 6) {
      uint64_t t0 = 0, t1 = 0, t2 = 0, t3 = 0, t4 = 0, t5 = 0;
#pragma GCC unroll 8
      for (size_t i = 0; i < N; ++i) {
        uint64_t A;
        product_row6(i, b[i], a, t0, t1, t2, t3, t4, t5, A);
        r[i] = t0;
        t0 = t1, t1 = t2, t2 = t3, t3 = t4, t4 = t5, t5 = A;
      }
      r[6] = t0, r[7] = t1, r[8] = t2, r[9] = t3, r[10] = t4, r[11] = t5;
    } else {
      // The product rows of mont_mul_adx without its reduction rows.
      uint64_t t0 = 0, t1 = 0, t2 = 0, t3 = 0;
#pragma GCC unroll 8
      for (size_t i = 0; i < N; ++i) {
        uint64_t A;
        product_row4(i, b[i], a, t0, t1, t2, t3, A);
        r[i] = t0;
        t0 = t1, t1 = t2, t2 = t3, t3 = A;
      }
      r[4] = t0, r[5] = t1, r[6] = t2, r[7] = t3;
    }
    return r;
  }
  // Reduction rows alone: (lo + m·p)/R, at most p.
  __attribute__((always_inline)) static Repr redc_lo_adx(const Repr& lo_in) {
    static_assert(N == 4 || N == 6);
    if constexpr (N == 6) {
      uint64_t t0 = lo_in[0], t1 = lo_in[1], t2 = lo_in[2], t3 = lo_in[3], t4 = lo_in[4],
               t5 = lo_in[5];
#pragma GCC unroll 8
      for (size_t i = 0; i < N; ++i) {
        uint64_t A = 0;
        reduction_row6(t0 * INV, t0, t1, t2, t3, t4, t5, A);
        t0 = t1, t1 = t2, t2 = t3, t3 = t4, t4 = t5, t5 = A;
      }
      return {t0, t1, t2, t3, t4, t5};
    } else {
      uint64_t t0 = lo_in[0], t1 = lo_in[1], t2 = lo_in[2], t3 = lo_in[3];
#pragma GCC unroll 8
      for (size_t i = 0; i < N; ++i) {
        uint64_t A = 0;
        reduction_row4(t0 * INV, t0, t1, t2, t3, A);
        t0 = t1, t1 = t2, t2 = t3, t3 = A;
      }
      return {t0, t1, t2, t3};
    }
  }
#endif




 private:
  // t < 2p -> t mod p, by a masked select (no branch on data).
  static constexpr void reduce_once(Repr& t) {
    Repr u;
    uint64_t borrow = sub_rt(u, t, MOD);
    const uint64_t keep = 0 - borrow;  // all ones when t < p: keep t
    for (size_t i = 0; i < N; ++i) t[i] = (t[i] & keep) | (u[i] & ~keep);
  }
  static constexpr void add_mod(Repr& r, const Repr& a, const Repr& b) {
    add_rt(r, a, b);  // < 2p < 2^(64N): no carry out thanks to the spare bit
    reduce_once(r);
  }
  // Carry chains: adc/sbb intrinsics at run time (GCC turns the u128 form into poor code),
  // the portable form in constant evaluation.
  template <size_t M>
  static constexpr uint64_t add_rt(Limbs<M>& r, const Limbs<M>& a, const Limbs<M>& b) {
#ifdef SPLITPROVE_X86
    if (!std::is_constant_evaluated()) {
      unsigned char c = 0;
      for (size_t i = 0; i < M; ++i) {
        unsigned long long o;
        c = _addcarry_u64(c, a[i], b[i], &o);
        r[i] = o;
      }
      return c;
    }
#endif
    return add_limbs(r, a, b);
  }
  template <size_t M>
  static constexpr uint64_t sub_rt(Limbs<M>& r, const Limbs<M>& a, const Limbs<M>& b) {
#ifdef SPLITPROVE_X86
    if (!std::is_constant_evaluated()) {
      unsigned char c = 0;
      for (size_t i = 0; i < M; ++i) {
        unsigned long long o;
        c = _subborrow_u64(c, a[i], b[i], &o);
        r[i] = o;
      }
      return c;
    }
#endif
    return sub_limbs(r, a, b);
  }

  static constexpr Repr P_MINUS_2 = [] {
    Repr r = MOD;
    r[0] -= 2;
    return r;
  }();
  static constexpr Repr P_MINUS_1_HALF = shr(P_MINUS_1, 1);
  static constexpr Repr P_PLUS_1_QUARTER = [] {
    Repr r = MOD;
    add_limbs(r, r, ff::from_u64<N>(1));
    return shr(r, 2);
  }();
  static constexpr Repr T_PLUS_1_HALF = [] {
    Repr r = T;
    add_limbs(r, r, ff::from_u64<N>(1));
    return shr(r, 1);
  }();

  Repr v_;
};

}  // namespace splitprove::ff

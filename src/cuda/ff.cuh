#pragma once
// Prime fields in Montgomery form for device code, over n 32-bit limbs (n even), written once and
// instantiated for any host prime field: DevField<bls12_381::Fr> (n = 8), DevField<bn254::Fp>
// (n = 8), DevField<bls12_381::Fp> (n = 12), ... (the one map from host to device field). Everything is __host__ __device__: on the
// device the carry chains are PTX (cuda/ptx.cuh), on the host they are emulated exactly, so the CPU
// test suite runs this very code against ff::Field.
//
// Memory layout: an element is the same bytes as the host's Limbs<n/2> (64-bit limbs,
// little-endian, and limb 2k of the 32-bit view is the low half of 64-bit limb k), so arrays of
// host Montgomery limbs are copied to the GPU as they are. Elements are always fully reduced (< p);
// every operation assumes that of its inputs and keeps it.
//
// The constants (p, R mod p, R^2 mod p, -p^-1 mod 2^32) are not written here: they are split from
// the host field's constexpr MOD, R1, R2 and INV at compile time.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "cuda/ptx.cuh"

namespace splitprove::cuda {

template <size_t n>
struct MontConsts {
  uint32_t mod[n];  // p
  uint32_t one[n];  // R mod p, R = 2^(32n): the Montgomery form of 1
  uint32_t r2[n];   // R^2 mod p: multiplying by it enters Montgomery form
  uint32_t m0;      // -p^-1 mod 2^32
};

// The constants of a host ff::Field, split into 32-bit limbs.
template <class HostField>
constexpr MontConsts<2 * HostField::N> mont_consts_of() {
  MontConsts<2 * HostField::N> c{};
  for (size_t i = 0; i < HostField::N; ++i) {
    c.mod[2 * i] = uint32_t(HostField::MOD[i]);
    c.mod[2 * i + 1] = uint32_t(HostField::MOD[i] >> 32);
    c.one[2 * i] = uint32_t(HostField::R1[i]);
    c.one[2 * i + 1] = uint32_t(HostField::R1[i] >> 32);
    c.r2[2 * i] = uint32_t(HostField::R2[i]);
    c.r2[2 * i + 1] = uint32_t(HostField::R2[i] >> 32);
  }
  // -p^-1 mod 2^64 reduced mod 2^32 is -p^-1 mod 2^32.
  c.m0 = uint32_t(HostField::INV);
  return c;
}

// The constants of each host field twice: a constexpr host copy, and a device copy in constant
// memory, one per translation unit (no relocatable device code needed). An operand in the constant
// bank costs nothing extra in IMAD, and m0 stays opaque to the compiler (BLS12-381 Fr's m0 is
// 0xffffffff, which it would otherwise "simplify" into slower code).
template <class HostField>
inline constexpr MontConsts<2 * HostField::N> kConstsHost = mont_consts_of<HostField>();
#if defined(__CUDACC__)
template <class HostField>
static __constant__ MontConsts<2 * HostField::N> kConstsDev = mont_consts_of<HostField>();
#endif

// A device field's traits (Mont's parameter): its limb count, its host field and its constants.
template <class HostField>
struct FieldTraits {
  static constexpr size_t n = 2 * HostField::N;
  using Host = HostField;
  SPLITPROVE_HD static const MontConsts<n>& c() {
#if defined(__CUDA_ARCH__)
    return kConstsDev<HostField>;
#else
    return kConstsHost<HostField>;
#endif
  }
  // The bounds in Mont::mul need one spare bit: p < 2^(32n - 1), i.e. the top 32-bit limb < 2^31.
  static_assert(kConstsHost<HostField>.mod[n - 1] < (1u << 31));
  static_assert(uint32_t(kConstsHost<HostField>.m0 * kConstsHost<HostField>.mod[0]) == 0xffffffffu);
};

// kInlineMul: whether products are expanded where they are used (the fast path of the field
// kernels) or called as one function per kernel (a G1 addition holds 10 to 23 products; inlined
// everywhere, the curve test kernels take ptxas minutes to compile instead of seconds).
template <class T, bool kInlineMul = true>
class alignas(16) Mont {
 public:
  static constexpr size_t n = T::n;
  static_assert(n % 4 == 0, "n must be a multiple of 4 (even for the row pairs, 16-byte loads)");
  using Host = typename T::Host;
  static_assert(Host::N * 2 == n);

  uint32_t v[n];  // little-endian 32-bit limbs of x·R mod p

  SPLITPROVE_HD static Mont zero() {
    Mont r;
    SPLITPROVE_UNROLL
    for (size_t i = 0; i < n; ++i) r.v[i] = 0;
    return r;
  }
  SPLITPROVE_HD static Mont one() { return from_raw(T::c().one); }
  SPLITPROVE_HD static Mont from_raw(const uint32_t* p) {
    Mont r;
    SPLITPROVE_UNROLL
    for (size_t i = 0; i < n; ++i) r.v[i] = p[i];
    return r;
  }

  // n/4 16-byte loads/stores: `p` must be 16-byte aligned (an element is 32 or 48 bytes, so any
  // element of a cudaMalloc'd array is).
  SPLITPROVE_HD static Mont load(const void* p) {
    Mont r;
#if defined(__CUDA_ARCH__)
    const uint4* q = static_cast<const uint4*>(p);
    SPLITPROVE_UNROLL
    for (size_t i = 0; i < n / 4; ++i) {
      uint4 w = q[i];
      r.v[4 * i] = w.x, r.v[4 * i + 1] = w.y, r.v[4 * i + 2] = w.z, r.v[4 * i + 3] = w.w;
    }
#else
    std::memcpy(r.v, p, sizeof(r.v));
#endif
    return r;
  }
  SPLITPROVE_HD void store(void* p) const {
#if defined(__CUDA_ARCH__)
    uint4* q = static_cast<uint4*>(p);
    SPLITPROVE_UNROLL
    for (size_t i = 0; i < n / 4; ++i)
      q[i] = make_uint4(v[4 * i], v[4 * i + 1], v[4 * i + 2], v[4 * i + 3]);
#else
    std::memcpy(p, v, sizeof(v));
#endif
  }

  SPLITPROVE_HD bool is_zero() const {
    uint32_t acc = 0;
    SPLITPROVE_UNROLL
    for (size_t i = 0; i < n; ++i) acc |= v[i];
    return acc == 0;
  }
  // v < p: whether raw limbs (from outside) hold a reduced element.
  SPLITPROVE_HD bool is_reduced() const {
    const uint32_t* p = T::c().mod;
    (void)ptx::sub_cc(v[0], p[0]);
    SPLITPROVE_UNROLL
    for (size_t i = 1; i < n; ++i) (void)ptx::subc_cc(v[i], p[i]);
    return ptx::subc(0, 0) != 0;  // borrowed
  }
  // Elements are fully reduced, so equality is equality of limbs.
  friend SPLITPROVE_HD bool operator==(const Mont& a, const Mont& b) {
    uint32_t acc = 0;
    SPLITPROVE_UNROLL
    for (size_t i = 0; i < n; ++i) acc |= a.v[i] ^ b.v[i];
    return acc == 0;
  }
  friend SPLITPROVE_HD bool operator!=(const Mont& a, const Mont& b) { return !(a == b); }

  // a + b < 2p < 2^(32n) (spare bit): no carry out, then one conditional subtraction.
  friend SPLITPROVE_HD Mont operator+(const Mont& a, const Mont& b) {
    Mont r;
    r.v[0] = ptx::add_cc(a.v[0], b.v[0]);
    SPLITPROVE_UNROLL
    for (size_t i = 1; i < n - 1; ++i) r.v[i] = ptx::addc_cc(a.v[i], b.v[i]);
    r.v[n - 1] = ptx::addc(a.v[n - 1], b.v[n - 1]);
    r.reduce_once();
    return r;
  }
  // a - b, plus p when that borrowed.
  friend SPLITPROVE_HD Mont operator-(const Mont& a, const Mont& b) {
    const uint32_t* p = T::c().mod;
    Mont r;
    r.v[0] = ptx::sub_cc(a.v[0], b.v[0]);
    SPLITPROVE_UNROLL
    for (size_t i = 1; i < n; ++i) r.v[i] = ptx::subc_cc(a.v[i], b.v[i]);
    const uint32_t mask = ptx::subc(0, 0);  // all ones when a < b
    r.v[0] = ptx::add_cc(r.v[0], p[0] & mask);
    SPLITPROVE_UNROLL
    for (size_t i = 1; i < n - 1; ++i) r.v[i] = ptx::addc_cc(r.v[i], p[i] & mask);
    r.v[n - 1] = ptx::addc(r.v[n - 1], p[n - 1] & mask);
    return r;
  }
  // p - a, and 0 (not p) for a = 0.
  SPLITPROVE_HD Mont operator-() const {
    const uint32_t* p = T::c().mod;
    const uint32_t mask = is_zero() ? 0u : 0xffffffffu;
    Mont r;
    r.v[0] = ptx::sub_cc(p[0] & mask, v[0]);
    SPLITPROVE_UNROLL
    for (size_t i = 1; i < n - 1; ++i) r.v[i] = ptx::subc_cc(p[i] & mask, v[i]);
    r.v[n - 1] = ptx::subc(p[n - 1] & mask, v[n - 1]);
    return r;
  }
  SPLITPROVE_HD Mont dbl() const { return *this + *this; }

  // Montgomery product a·b·R^-1 mod p: CIOS over 32-bit limbs, each row's products split into
  // two carry chains (below). Needs a < p and p < 2^(32n-1); b may be any n-limb integer.
  friend SPLITPROVE_HD Mont operator*(const Mont& a, const Mont& b) {
    if constexpr (kInlineMul)
      return mul(a, b.v);
    else
      return mul_call(a, b);
  }
  // Squaring is the general product for now (a dedicated square saves ~n^2/2 of the 2n^2
  // limb products: a later increment).
  SPLITPROVE_HD Mont sqr() const { return *this * *this; }
  SPLITPROVE_HD Mont& operator+=(const Mont& b) { return *this = *this + b; }
  SPLITPROVE_HD Mont& operator-=(const Mont& b) { return *this = *this - b; }
  SPLITPROVE_HD Mont& operator*=(const Mont& b) { return *this = *this * b; }

  // Canonical x (< p) -> x·R mod p, and back: x·R^2·R^-1 and (x·R)·1·R^-1.
  SPLITPROVE_HD Mont to_mont() const { return mul(*this, T::c().r2); }
  SPLITPROVE_HD Mont from_mont() const {
    uint32_t one_raw[n] = {1};
    return mul(*this, one_raw);
  }

  // The product as a called function. Arguments by value: they travel in registers, where a
  // reference would force the caller's operands into local memory.
#if defined(__CUDACC__)
  __host__ __device__ __noinline__
#endif
      static Mont
      mul_call(Mont a, Mont b) {
    return mul(a, b.v);
  }

  // ---- the Montgomery product -------------------------------------------------------------------
  //
  // Row i of CIOS computes T <- (T + a·b_i + m·p) / 2^32 with m = (T + a·b_i)·(-p^-1) mod 2^32.
  // The n limb products a_j·b_i are 64 bits wide; the low half lands on limb j, the high half on
  // limb j+1, so the products of even j tile the limbs (0,1),(2,3),... and those of odd j the limbs
  // (1,2),(3,4),... Each family is one carry chain of mad.lo.cc/madc.hi.cc with no overlap inside
  // it. So T is held as two n-limb arrays, T = X + 2^32·Y: X gathers the even-j products (aligned
  // at limb 0), Y the odd-j products (aligned at limb 1).
  //
  // After the reduction X[0] = 0, and the division by 2^32 is a renaming: T/2^32 = Y + (X >> 32),
  // so Y becomes the aligned-at-0 array of the next row, and X shifted down by two limbs (X[k+2]
  // goes to position k+1) becomes its aligned-at-1 array; X[1], left over at position 0, is added
  // into Y[0] and its carry starts the next chain. The two arrays swap roles every row, which is
  // why the rows are unrolled.
  //
  // Bounds (p < 2^(32n-1), a < p, b_i < 2^32): T < 2p after every row, since
  // (2p + (2^32-1)·p + (2^32-1)·p)/2^32 < 2p, and before the division T < 2^33·p < 2^(32n+32):
  // n+1 limbs. The aligned-at-1 array then never exceeds n limbs (2^32·Y <= T), so every carry out
  // of its top limb is zero and is dropped, and the carry out of the aligned-at-0 array (weight
  // 2^(32n)) is added into the top limb of the other one, where it fits. The result, < 2p, is
  // reduced by one conditional subtraction.
  SPLITPROVE_HD static Mont mul(const Mont& a, const uint32_t* b) {
    const uint32_t* p = T::c().mod;
    const uint32_t m0 = T::c().m0;
    uint32_t X[n], Y[n];

    // Row 0: T = a·b_0 (no carries: the pairs do not overlap), then + m·p.
    mul_pairs(X, a.v, b[0]);
    mul_pairs(Y, a.v + 1, b[0]);
    reduce_row(X, Y, p, X[0] * m0);

    // Rows 1..n-1; the aligned-at-0 array alternates Y, X, Y, ... (n even: row n-1 uses Y).
    SPLITPROVE_UNROLL
    for (size_t i = 1; i < n - 1; i += 2) {
      row(Y, X, a.v, b[i], p, m0);
      row(X, Y, a.v, b[i + 1], p, m0);
    }
    row(Y, X, a.v, b[n - 1], p, m0);

    // Result T/2^32 = X + (Y >> 32): Y is aligned at 0 with Y[0] = 0, X at 1.
    Mont r;
    r.v[0] = ptx::add_cc(X[0], Y[1]);
    SPLITPROVE_UNROLL
    for (size_t k = 1; k < n - 1; ++k) r.v[k] = ptx::addc_cc(X[k], Y[k + 1]);
    r.v[n - 1] = ptx::addc(X[n - 1], 0);
    r.reduce_once();
    return r;
  }

 private:
  // acc[j] = lo(a[j]·b), acc[j+1] = hi(a[j]·b) for even j < n (products of a[0], a[2], ...; pass
  // a + 1 for the odd ones).
  SPLITPROVE_HD static void mul_pairs(uint32_t* acc, const uint32_t* a, uint32_t b) {
    SPLITPROVE_UNROLL
    for (size_t j = 0; j < n; j += 2) {
      acc[j] = ptx::mul_lo(a[j], b);
      acc[j + 1] = ptx::mul_hi(a[j], b);
    }
  }
  // acc += the same pairs, in one carry chain started here; the carry out of acc[n-1] is left in
  // CF.
  SPLITPROVE_HD static void mad_pairs(uint32_t* acc, const uint32_t* a, uint32_t b) {
    acc[0] = ptx::mad_lo_cc(a[0], b, acc[0]);
    acc[1] = ptx::madc_hi_cc(a[0], b, acc[1]);
    SPLITPROVE_UNROLL
    for (size_t j = 2; j < n; j += 2) {
      acc[j] = ptx::madc_lo_cc(a[j], b, acc[j]);
      acc[j + 1] = ptx::madc_hi_cc(a[j], b, acc[j + 1]);
    }
  }
  // T = x + 2^32·y  +=  m·p, which zeroes x[0]. x's carry out (weight 2^(32n)) goes to y[n-1].
  SPLITPROVE_HD static void reduce_row(uint32_t* x, uint32_t* y, const uint32_t* p, uint32_t m) {
    mad_pairs(y, p + 1, m);  // carry out is zero (bounds above)
    mad_pairs(x, p, m);
    y[n - 1] = ptx::addc(y[n - 1], 0);
  }
  // One row i >= 1. On entry T_prev = y + 2^32·x with y[0] = 0 (y was the previous aligned-at-0
  // array); on exit T = x + 2^32·y = T_prev/2^32 + a·b_i + m·p with x[0] = 0.
  SPLITPROVE_HD static void row(uint32_t* x, uint32_t* y, const uint32_t* a, uint32_t bi,
                                const uint32_t* p, uint32_t m0) {
    // T_prev/2^32 = x + (y >> 32): y[1] joins x[0]; y[k+2] moves to y[k] (weight 2^(32(k+1)))
    // while the odd products a[2j+1]·b_i are added on the way, continuing the carry of x[0].
    x[0] = ptx::add_cc(x[0], y[1]);
    SPLITPROVE_UNROLL
    for (size_t j = 0; j < n - 2; j += 2) {
      y[j] = ptx::madc_lo_cc(a[j + 1], bi, y[j + 2]);
      y[j + 1] = ptx::madc_hi_cc(a[j + 1], bi, y[j + 3]);
    }
    y[n - 2] = ptx::madc_lo_cc(a[n - 1], bi, 0);
    y[n - 1] = ptx::madc_hi(a[n - 1], bi, 0);
    // The even products into x.
    mad_pairs(x, a, bi);
    y[n - 1] = ptx::addc(y[n - 1], 0);
    reduce_row(x, y, p, x[0] * m0);
  }

  // v < 2p -> v mod p: subtract p, keep the difference unless it borrowed (a select, no branch).
  SPLITPROVE_HD void reduce_once() {
    const uint32_t* p = T::c().mod;
    uint32_t t[n];
    t[0] = ptx::sub_cc(v[0], p[0]);
    SPLITPROVE_UNROLL
    for (size_t i = 1; i < n; ++i) t[i] = ptx::subc_cc(v[i], p[i]);
    const uint32_t keep = ptx::subc(0, 0);  // all ones when v < p
    SPLITPROVE_UNROLL
    for (size_t i = 0; i < n; ++i) v[i] = (v[i] & keep) | (t[i] & ~keep);
  }
};

// The device type of a host prime field (ff::Field): products inlined (kInlineMul, the field
// kernels' fast path) or called (the curve kernels'; see Mont).
template <class HostField, bool kInlineMul = true>
using DevField = Mont<FieldTraits<HostField>, kInlineMul>;

}  // namespace splitprove::cuda

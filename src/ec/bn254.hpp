#pragma once
// BN254 (snarkjs "bn128", Ethereum "alt_bn128", EIP-196/197): the parameter set. Everything below
// is data handed to the generic field, tower, curve and pairing templates; the only
// curve-specific code is the G2 subgroup check.
//
//   x  = 0x44e992b44a6909f1                         (the BN parameter, positive)
//   p  = 36x^4 + 36x^3 + 24x^2 + 6x + 1              (254 bits)
//   r  = 36x^4 + 36x^3 + 18x^2 + 6x + 1              (254 bits), t - 1 = 6x^2
//   E  : y^2 = x^3 + 3 over Fp (cofactor 1),  E' : y^2 = x^3 + 3/(9 + u) over Fp2 (D-twist,
//        cofactor 2p - r)
#include "ec/curve.hpp"
#include "ec/pairing.hpp"
#include "ec/twist.hpp"
#include "ff/field.hpp"
#include "ff/tower.hpp"

namespace splitprove::bn254 {

using ff::Limbs;

struct FpParams {
  static constexpr size_t N = 4;
  static constexpr Limbs<4> modulus =
      ff::from_hex<4>("30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47");
  static constexpr const char* name = "bn254 Fp";
};
using Fp = ff::Field<FpParams>;

// Fr: r - 1 = 2^28 · t. Its NTT roots follow snarkjs/ffjavascript: w[28] = 5^t with 5 the smallest
// quadratic non-residue, w[k] = w[k+1]^2 (see Fr::root_of_unity).
struct FrParams {
  static constexpr size_t N = 4;
  static constexpr Limbs<4> modulus =
      ff::from_hex<4>("30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001");
  static constexpr const char* name = "bn254 Fr";
};
using Fr = ff::Field<FrParams>;

struct TowerParams {
  using Fp = bn254::Fp;
  static constexpr uint64_t XI0 = 9;  // xi = 9 + u
};
using Fp2 = ff::Fp2<TowerParams>;
using Fp6 = ff::Fp6<TowerParams>;
using Fp12 = ff::Fp12<TowerParams>;

inline constexpr uint64_t kX = 0x44e992b44a6909f1ull;
inline constexpr bool kXIsNegative = false;

// GLV on both groups with the endomorphism E(x, y) = (beta·x, y), beta a primitive cube root of
// unity in Fp: it maps E and the twist E' to themselves (a = 0), and on G1 and on G2 it acts as
// multiplication by lambda, the cube root of unity mod r below (checked by the tests on both
// groups). Unlike BLS12 (lambda = x^2, a split by two divisions), lambda here is 192 bits, so the
// split is the lattice one of Gallant, Lambert and Vanstone (2001): with the short basis
//   v1 = (a1, b1) = (2x + 1, -(6x^2 + 2x)),   v2 = (a2, b2) = (6x^2 + 4x + 1, 2x + 1)
// of {(u, w) : u + w·lambda = 0 mod r} (det = a1·b2 - a2·b1 = r), write
// (k, 0) = beta1·v1 + beta2·v2 with beta1 = k·b2/r, beta2 = -k·b1/r, and take
// c_i = floor(k·g_i / 2^256) with g_1 = round(2^256·b2/r), g_2 = round(2^256·(-b1)/r): k·g_i/2^256
// is within k/2^257 < 1/8 of beta_i, so c_i is floor(beta_i) or one less. Then
// (k1, k2) = (k, 0) - c1·v1 - c2·v2 = (beta1 - c1)·v1 + (beta2 - c2)·v2 has coefficients in [0, 2):
// |k1| < 2·(a1 + a2) < 2^128 and |k2| < 2·(|b1| + b2) < 2^128.
struct BnGlv {
  static constexpr unsigned kBits = 128;
  static constexpr Limbs<4> kLambda =
      ff::from_hex<4>("b3c4d79d41a917585bfc41088d8daaa78b17ea66b99c90dd");
  static ec::GlvSplit<4> split(const Limbs<4>& k);
};

struct G1Params {
  using F = Fp;
  using Fr = bn254::Fr;
  struct Glv : BnGlv {
    static void endo(Fp& x, Fp& y);
  };
  static Fp b() { return Fp::from_u64(3); }
  static Fp gen_x() { return Fp::one(); }
  static Fp gen_y() { return Fp::from_u64(2); }
};

struct G2Params {
  using F = Fp2;
  using Fr = bn254::Fr;
  struct Glv : BnGlv {
    static void endo(Fp2& x, Fp2& y);
  };
  static Fp2 b() {  // 3/(9 + u)
    static const Fp2 v = Fp2{Fp::from_u64(9), Fp::one()}.inverse() * Fp::from_u64(3);
    return v;
  }
  static Fp2 gen_x() {
    static const Fp2 v{
        Fp::from_hex("1800deef121f1e76426a00665e5c4479674322d4f75edadd46debd5cd992f6ed"),
        Fp::from_hex("198e9393920d483a7260bfb731fb5d25f1aa493335a9e71297e485b7aef312c2")};
    return v;
  }
  static Fp2 gen_y() {
    static const Fp2 v{
        Fp::from_hex("12c85ea5db8c6deb4aab71808dcb408fe3d1e7690c43d37b4ce6cc0166fa7daa"),
        Fp::from_hex("090689d0585ff075ec9e99ad690c3395bc4b313370b38ef355acdadcd122975b")};
    return v;
  }
};

using G1 = ec::Curve<G1Params>;
using G2 = ec::Curve<G2Params>;
using G1Affine = G1::Affine;
using G1Jacobian = G1::Jacobian;
using G2Affine = G2::Affine;
using G2Jacobian = G2::Jacobian;

// G1 = E(Fp): the cofactor is 1, so every point on the curve is in the subgroup.
inline bool g1_in_subgroup(const G1Jacobian& p) { return p.on_curve(); }

// psi = untwist-Frobenius-twist on the D-twist E' (ec/twist.hpp).
using Psi = ec::Psi<TowerParams, ec::Twist::kD>;
inline G2Jacobian psi(const G2Jacobian& p) { return Psi::apply(p); }

// 6x^2 = t - 1 = p mod r, the eigenvalue of psi on G2.
inline constexpr Limbs<2> kSixXSquared = [] {
  const unsigned __int128 v = (unsigned __int128)kX * kX * 6;
  return Limbs<2>{uint64_t(v), uint64_t(v >> 64)};
}();

// G2 membership: psi(Q) = [6x^2]Q. Necessary since psi acts as p = 6x^2 mod r on G2; sufficient
// because psi^2 - t·psi + p = 0 on E'(Fp2) turns psi(Q) = [l]Q into [l^2 - t·l + p]Q = 0, and with
// l = 6x^2, t = 6x^2 + 1 that integer is 36x^4 + 36x^3 + 18x^2 + 6x + 1 = r.
inline bool g2_in_subgroup(const G2Jacobian& p) {
  if (p.is_identity()) return true;
  return psi(p) == p.mul(kSixXSquared);
}

namespace detail {
// (a·b) mod 2^256 for a < 2^256, b < 2^192 given as three limbs (the high product limbs dropped).
inline Limbs<4> mul_lo256(const Limbs<4>& a, const Limbs<3>& b) {
  Limbs<4> r{};
  for (size_t i = 0; i < 3; ++i) {
    uint64_t carry = 0;
    for (size_t j = 0; i + j < 4; ++j) {
      const ff::u128 t = ff::u128(a[j]) * b[i] + r[i + j] + carry;
      r[i + j] = uint64_t(t);
      carry = uint64_t(t >> 64);
    }
  }
  return r;
}
// floor(a·g / 2^256) for a < 2^256 and g < 2^192 (three limbs): at most 192 bits.
inline Limbs<4> mul_hi256(const Limbs<4>& a, const Limbs<3>& g) {
  uint64_t w[7] = {};
  for (size_t i = 0; i < 3; ++i) {
    uint64_t carry = 0;
    for (size_t j = 0; j < 4; ++j) {
      const ff::u128 t = ff::u128(a[j]) * g[i] + w[i + j] + carry;
      w[i + j] = uint64_t(t);
      carry = uint64_t(t >> 64);
    }
    w[i + 4] = carry;
  }
  return Limbs<4>{w[4], w[5], w[6], 0};
}
// A two's-complement value mod 2^256 that is known to be small: its magnitude and sign.
inline Limbs<4> magnitude(const Limbs<4>& v, bool& neg) {
  neg = v[3] >> 63;
  if (!neg) return v;
  Limbs<4> m{};
  ff::sub_limbs(m, Limbs<4>{}, v);
  return m;
}
}  // namespace detail

inline ec::GlvSplit<4> BnGlv::split(const Limbs<4>& k) {
  // The constants of the comment above BnGlv, derived by scripts/bn254_glv_constants.py; the
  // tests check the identity k = k1 + k2·lambda and the bound.
  static constexpr Limbs<3> kA1 = {0x89d3256894d213e3ull, 0, 0};                     // 2x + 1
  // -b1 = 6x^2 + 2x, a2 = 6x^2 + 4x + 1, g1, g2 as in the comment above BnGlv.
  static constexpr Limbs<3> kB1Neg = {0x8211bbeb7d4f1128ull, 0x6f4d8248eeb859fcull, 0};
  static constexpr Limbs<3> kA2 = {0x0be4e1541221250bull, 0x6f4d8248eeb859fdull, 0};
  static constexpr Limbs<3> kB2 = {0x89d3256894d213e3ull, 0, 0};                     // 2x + 1
  static constexpr Limbs<3> kG1 = {0xd91d232ec7e0b3d7ull, 0x2ull, 0};
  static constexpr Limbs<3> kG2 = {0x7a7bd9d4391eb18eull, 0x4ccef014a773d2cfull, 0x2ull};
  const Limbs<4> c1 = detail::mul_hi256(k, kG1), c2 = detail::mul_hi256(k, kG2);
  // k1 = k - c1·a1 - c2·a2,  k2 = c1·(-b1) - c2·b2, all mod 2^256 (the true values are small).
  Limbs<4> k1 = k, k2{};
  ff::sub_limbs(k1, k1, detail::mul_lo256(c1, kA1));
  ff::sub_limbs(k1, k1, detail::mul_lo256(c2, kA2));
  k2 = detail::mul_lo256(c1, kB1Neg);
  ff::sub_limbs(k2, k2, detail::mul_lo256(c2, kB2));
  ec::GlvSplit<4> s;
  s.k1 = detail::magnitude(k1, s.neg1);
  s.k2 = detail::magnitude(k2, s.neg2);
  return s;
}

// beta = 0x59e2...fffe on G1 (eigenvalue lambda); on G2 the same lambda belongs to beta^2
// (the other primitive cube root), found by checking both on the generators.
inline void G1Params::Glv::endo(Fp& x, Fp&) {
  static const Fp beta = Fp::from_hex("59e26bcea0d48bacd4f263f1acdb5c4f5763473177fffffe");
  x = x * beta;
}
inline void G2Params::Glv::endo(Fp2& x, Fp2&) {
  static const Fp beta2 =
      Fp::from_hex("30644e72e131a0295e6dd9e7e0acccb0c28f069fbb966e3de4bd44e5607cfd48");
  x = x * beta2;
}

inline bool in_subgroup(const G1Jacobian& p) { return g1_in_subgroup(p); }
inline bool in_subgroup(const G2Jacobian& p) { return g2_in_subgroup(p); }

struct PairingParams {
  using Tower = TowerParams;
  using G1 = bn254::G1;
  using G2 = bn254::G2;
  using G2Params = bn254::G2Params;
  static constexpr ec::Family FAMILY = ec::Family::kBn;
  static constexpr ec::Twist TWIST = ec::Twist::kD;
  static constexpr uint64_t X = kX;
  static constexpr bool X_IS_NEGATIVE = kXIsNegative;
};
using Pairing = ec::Pairing<PairingParams>;

}  // namespace splitprove::bn254

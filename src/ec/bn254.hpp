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

struct G1Params {
  using F = Fp;
  using Fr = bn254::Fr;
  static Fp b() { return Fp::from_u64(3); }
  static Fp gen_x() { return Fp::one(); }
  static Fp gen_y() { return Fp::from_u64(2); }
};

struct G2Params {
  using F = Fp2;
  using Fr = bn254::Fr;
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

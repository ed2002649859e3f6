#pragma once
// BLS12-381: the parameter set. Everything below is data handed to the generic field, tower,
// curve and pairing templates; the only curve-specific code is the choice of endomorphisms for
// the fast subgroup checks.
//
//   x  = -0xd201000000010000                       (the BLS parameter)
//   p  = (x - 1)^2 (x^4 - x^2 + 1)/3 + x           (381 bits)
//   r  = x^4 - x^2 + 1                             (255 bits)
//   E  : y^2 = x^3 + 4 over Fp,  E' : y^2 = x^3 + 4(1 + u) over Fp2 (M-twist)
#include "ec/curve.hpp"
#include "ec/pairing.hpp"
#include "ec/twist.hpp"
#include "ff/field.hpp"
#include "ff/tower.hpp"

namespace splitprove::bls12_381 {

using ff::Limbs;

struct FpParams {
  static constexpr size_t N = 6;
  static constexpr Limbs<6> modulus = ff::from_hex<6>(
      "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab");
  static constexpr const char* name = "bls12_381 Fp";
};
using Fp = ff::Field<FpParams>;

// Fr: r - 1 = 2^32 · t. Its NTT roots follow snarkjs/ffjavascript: w[32] = 5^t with 5 the smallest
// quadratic non-residue, w[k] = w[k+1]^2 (see Fr::root_of_unity).
struct FrParams {
  static constexpr size_t N = 4;
  static constexpr Limbs<4> modulus =
      ff::from_hex<4>("73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001");
  static constexpr const char* name = "bls12_381 Fr";
};
using Fr = ff::Field<FrParams>;

struct TowerParams {
  using Fp = bls12_381::Fp;
  static constexpr uint64_t XI0 = 1;  // xi = 1 + u
};
using Fp2 = ff::Fp2<TowerParams>;
using Fp6 = ff::Fp6<TowerParams>;
using Fp12 = ff::Fp12<TowerParams>;

// |x| and its sign.
inline constexpr uint64_t kX = 0xd201000000010000ull;
inline constexpr bool kXIsNegative = true;

// GLV on both groups with lambda = x^2 (see ec::glv_split_by_x_squared): on G1 the endomorphism is
// E(x, y) = (beta·x, -y) = -phi(x, y), on G2 it is psi^2 (psi(P) = [x]P, so psi^2(P) = [x^2]P).
struct BlsGlv {
  static constexpr unsigned kBits = 128;
  static ec::GlvSplit<4> split(const Limbs<4>& k) { return ec::glv_split_by_x_squared(k, kX); }
};

struct G1Params {
  using F = Fp;
  using Fr = bls12_381::Fr;
  struct Glv : BlsGlv {
    static void endo(Fp& x, Fp& y);
  };
  static Fp b() { return Fp::from_u64(4); }
  static Fp gen_x() {
    static const Fp v = Fp::from_hex(
        "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb");
    return v;
  }
  static Fp gen_y() {
    static const Fp v = Fp::from_hex(
        "08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1");
    return v;
  }
};

struct G2Params {
  using F = Fp2;
  using Fr = bls12_381::Fr;
  struct Glv : BlsGlv {
    static void endo(Fp2& x, Fp2& y);
  };
  static Fp2 b() { return Fp2{Fp::from_u64(4), Fp::from_u64(4)}; }
  static Fp2 gen_x() {
    static const Fp2 v{
        Fp::from_hex("024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8"),
        Fp::from_hex("13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e")};
    return v;
  }
  static Fp2 gen_y() {
    static const Fp2 v{
        Fp::from_hex("0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801"),
        Fp::from_hex("0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be")};
    return v;
  }
};

using G1 = ec::Curve<G1Params>;
using G2 = ec::Curve<G2Params>;
using G1Affine = G1::Affine;
using G1Jacobian = G1::Jacobian;
using G2Affine = G2::Affine;
using G2Jacobian = G2::Jacobian;

// [x]P for the (negative) BLS parameter: double-and-add over the 6 set bits of |x|, then negate.
template <class J>
J mul_by_x(const J& p) {
  J r = p;  // top bit of |x|
  for (int i = 62; i >= 0; --i) {
    r = r.dbl();
    if ((kX >> i) & 1) r += p;
  }
  return kXIsNegative ? -r : r;
}

// G1 membership (Scott, "A note on group membership tests for G1, G2 and GT on BLS
// pairing-friendly curves", 2021): with phi(x, y) = (beta·x, y) for the cube root of unity beta
// whose eigenvalue on G1 is -x^2, P is in G1 iff phi(P) = -x^2·P.
// beta is picked at first use as the cube root that satisfies this on the generator.
inline const Fp& g1_beta() {
  static const Fp beta = [] {
    Fp omega;  // a primitive cube root of unity: g^((p-1)/3) != 1 for a non-cube g
    for (uint64_t g = 2;; ++g) {
      omega = Fp::from_u64(g).pow(ff::div_small(Fp::P_MINUS_1, 3));
      if (!omega.is_one()) break;
    }
    const G1Jacobian gen = G1Jacobian::generator();
    const G1Jacobian target = -mul_by_x(mul_by_x(gen));
    for (Fp cand : {omega, omega.square()}) {
      G1Jacobian phi{gen.X * cand, gen.Y, gen.Z};
      if (phi == target) return cand;
    }
    return Fp::zero();  // unreachable for the real parameters; tests check g1_beta() != 0
  }();
  return beta;
}

inline bool g1_in_subgroup(const G1Jacobian& p) {
  if (p.is_identity()) return true;
  G1Jacobian phi{p.X * g1_beta(), p.Y, p.Z};
  return phi == -mul_by_x(mul_by_x(p));
}

// psi = untwist-Frobenius-twist on the M-twist E' (ec/twist.hpp). G2 membership (Scott 2021):
// psi(P) = [x]P.
using Psi = ec::Psi<TowerParams, ec::Twist::kM>;
inline G2Jacobian psi(const G2Jacobian& p) { return Psi::apply(p); }

inline bool g2_in_subgroup(const G2Jacobian& p) {
  if (p.is_identity()) return true;
  return psi(p) == mul_by_x(p);
}

inline void G1Params::Glv::endo(Fp& x, Fp& y) {
  x = x * g1_beta();
  y = -y;
}

// psi^2(x, y) = (x·conj(cx)·cx, y·conj(cy)·cy) = (x·|cx|^2, y·|cy|^2): two constants of Fp.
inline void G2Params::Glv::endo(Fp2& x, Fp2& y) {
  static const Fp nx = Psi::get().cx.norm(), ny = Psi::get().cy.norm();
  x = x * nx;
  y = y * ny;
}

inline bool in_subgroup(const G1Jacobian& p) { return g1_in_subgroup(p); }
inline bool in_subgroup(const G2Jacobian& p) { return g2_in_subgroup(p); }

struct PairingParams {
  using Tower = TowerParams;
  using G1 = bls12_381::G1;
  using G2 = bls12_381::G2;
  using G2Params = bls12_381::G2Params;
  static constexpr ec::Family FAMILY = ec::Family::kBls12;
  static constexpr ec::Twist TWIST = ec::Twist::kM;
  static constexpr uint64_t X = kX;
  static constexpr bool X_IS_NEGATIVE = kXIsNegative;
};
using Pairing = ec::Pairing<PairingParams>;

}  // namespace splitprove::bls12_381

#pragma once
// The curves a Groth16 key, proof or circuit file can be for, and the parameter sets ("engines")
// the zk and io layers are written over. A file names its curve only through its primes, so the
// readers identify it from them (io/curve_id.hpp) and the caller dispatches once, at the top:
//
//   switch (io::detect_curve(path)) { case zk::CurveId::kBls12_381: run<zk::Bls12_381>(...); }
//
// BN254 is known by its primes (to say "BN254 is not supported yet" instead of "unknown prime");
// adding it is a second engine struct with the same members.
#include <cstdint>
#include <string_view>

#include "ec/bls12_381.hpp"
#include "ff/bigint.hpp"

namespace splitprove::zk {

enum class CurveId { kBn254, kBls12_381 };

// The curve's usual name, as in messages ("BLS12-381").
constexpr std::string_view curve_name(CurveId c) {
  return c == CurveId::kBn254 ? "BN254" : "BLS12-381";
}

// Base-field prime q and scalar-field prime r of the curves the circom/snarkjs world uses,
// as little-endian limbs (the files store them as plain little-endian integers).
inline constexpr ff::Limbs<6> kBls12_381Q = bls12_381::FpParams::modulus;
inline constexpr ff::Limbs<4> kBls12_381R = bls12_381::FrParams::modulus;
inline constexpr ff::Limbs<4> kBn254Q =
    ff::from_hex<4>("30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47");
inline constexpr ff::Limbs<4> kBn254R =
    ff::from_hex<4>("30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001");

// BLS12-381 as the zk and io layers see it.
struct Bls12_381 {
  static constexpr CurveId kId = CurveId::kBls12_381;
  static constexpr std::string_view kName = "BLS12-381";
  static constexpr std::string_view kSnarkjsName = "bls12381";  // "curve" in snarkjs JSON
  using Fp = bls12_381::Fp;
  using Fr = bls12_381::Fr;
  using Fp2 = bls12_381::Fp2;
  using Fp6 = bls12_381::Fp6;
  using Fp12 = bls12_381::Fp12;
  using G1 = bls12_381::G1;
  using G2 = bls12_381::G2;
  using G1Affine = bls12_381::G1Affine;
  using G2Affine = bls12_381::G2Affine;
  using G1Jacobian = bls12_381::G1Jacobian;
  using G2Jacobian = bls12_381::G2Jacobian;
  using Pairing = bls12_381::Pairing;
  static bool in_subgroup(const G1Jacobian& p) { return bls12_381::g1_in_subgroup(p); }
  static bool in_subgroup(const G2Jacobian& p) { return bls12_381::g2_in_subgroup(p); }
};

}  // namespace splitprove::zk

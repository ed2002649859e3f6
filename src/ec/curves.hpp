#pragma once
// The curves a Groth16 key, proof or circuit file can be for, and the parameter sets ("engines")
// every layer above ec is written over (zk, io, the pipeline, the CUDA backend). A file names its curve only through its primes (or, in
// snarkjs JSON, its "curve" member), so the readers identify it from them (io/curve_id.hpp) and
// the caller dispatches once, at the top:
//
//   ec::with_engine(io::detect_curve(path), [&](auto e) { run<decltype(e)>(...); });
#include <cstdint>
#include <string_view>

#include "ec/bls12_381.hpp"
#include "ec/bn254.hpp"
#include "ff/bigint.hpp"

namespace splitprove::ec {

enum class CurveId { kBn254, kBls12_381 };

// The curve's usual name, as in messages ("BLS12-381").
constexpr std::string_view curve_name(CurveId c) {
  return c == CurveId::kBn254 ? "BN254" : "BLS12-381";
}

// Base-field prime q and scalar-field prime r of the curves the circom/snarkjs world uses,
// as little-endian limbs (the files store them as plain little-endian integers).
inline constexpr ff::Limbs<6> kBls12_381Q = bls12_381::FpParams::modulus;
inline constexpr ff::Limbs<4> kBls12_381R = bls12_381::FrParams::modulus;
inline constexpr ff::Limbs<4> kBn254Q = bn254::FpParams::modulus;
inline constexpr ff::Limbs<4> kBn254R = bn254::FrParams::modulus;

// BLS12-381 as the layers above ec see it.
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

// BN254 (snarkjs "bn128") as the layers above ec see it.
struct Bn254 {
  static constexpr CurveId kId = CurveId::kBn254;
  static constexpr std::string_view kName = "BN254";
  static constexpr std::string_view kSnarkjsName = "bn128";  // "curve" in snarkjs JSON
  using Fp = bn254::Fp;
  using Fr = bn254::Fr;
  using Fp2 = bn254::Fp2;
  using Fp6 = bn254::Fp6;
  using Fp12 = bn254::Fp12;
  using G1 = bn254::G1;
  using G2 = bn254::G2;
  using G1Affine = bn254::G1Affine;
  using G2Affine = bn254::G2Affine;
  using G1Jacobian = bn254::G1Jacobian;
  using G2Jacobian = bn254::G2Jacobian;
  using Pairing = bn254::Pairing;
  static bool in_subgroup(const G1Jacobian& p) { return bn254::g1_in_subgroup(p); }
  static bool in_subgroup(const G2Jacobian& p) { return bn254::g2_in_subgroup(p); }
};

// The engines, one line each: light instantiation sites expand a macro X(E) over this list
// (`SPLITPROVE_FOR_EACH_ENGINE(X)`); the heavy layers (msm, domain, groth16, stages, pipeline
// engine) keep one small file per curve so that the curves compile in parallel, each file one
// line naming its layer's instantiation macro. Adding a curve: its engine struct above, one line
// here, one file per heavy layer, a case in with_engine, and its tests.
#define SPLITPROVE_FOR_EACH_ENGINE(X) \
  X(::splitprove::ec::Bls12_381)      \
  X(::splitprove::ec::Bn254)

// Calls f(Engine{}) with the engine of the curve id: the one switch from a file's curve to code.
template <class F>
decltype(auto) with_engine(CurveId id, F&& f) {
  switch (id) {
    case CurveId::kBn254:
      return f(Bn254{});
    case CurveId::kBls12_381:
      break;
  }
  return f(Bls12_381{});
}

}  // namespace splitprove::ec

#pragma once
// The curves the typed suites run over: one struct per curve naming its fields, groups, pairing
// and known-answer vectors. A new curve adds a struct here and to kAllCurves' type list.
#include <gtest/gtest.h>

#include "ec/bls12_381.hpp"
#include "ec/bn254.hpp"
#include "test_util.hpp"

namespace splitprove::testing {

struct Bls12_381Curve {
  static constexpr const char* kName = "bls12_381";
  using Fp = bls12_381::Fp;
  using Fr = bls12_381::Fr;
  using Fp2 = bls12_381::Fp2;
  using Fp6 = bls12_381::Fp6;
  using Fp12 = bls12_381::Fp12;
  using G1 = bls12_381::G1;
  using G2 = bls12_381::G2;
  using Pairing = bls12_381::Pairing;
  static constexpr uint64_t kXi0 = 1;
  static constexpr unsigned kTwoAdicity = 32;
  static bool in_subgroup(const G1::Jacobian& p) { return bls12_381::g1_in_subgroup(p); }
  static bool in_subgroup(const G2::Jacobian& p) { return bls12_381::g2_in_subgroup(p); }
  static G2::Jacobian psi(const G2::Jacobian& p) { return bls12_381::psi(p); }
  // The eigenvalue of psi on G2 (p mod r), as a multiplication.
  static G2::Jacobian psi_eigen(const G2::Jacobian& p) { return bls12_381::mul_by_x(p); }
  static const nlohmann::json& vectors() { return vectors_for(kName); }
};

struct Bn254Curve {
  static constexpr const char* kName = "bn254";
  using Fp = bn254::Fp;
  using Fr = bn254::Fr;
  using Fp2 = bn254::Fp2;
  using Fp6 = bn254::Fp6;
  using Fp12 = bn254::Fp12;
  using G1 = bn254::G1;
  using G2 = bn254::G2;
  using Pairing = bn254::Pairing;
  static constexpr uint64_t kXi0 = 9;
  static constexpr unsigned kTwoAdicity = 28;
  static bool in_subgroup(const G1::Jacobian& p) { return bn254::g1_in_subgroup(p); }
  static bool in_subgroup(const G2::Jacobian& p) { return bn254::g2_in_subgroup(p); }
  static G2::Jacobian psi(const G2::Jacobian& p) { return bn254::psi(p); }
  static G2::Jacobian psi_eigen(const G2::Jacobian& p) { return p.mul(bn254::kSixXSquared); }
  static const nlohmann::json& vectors() { return vectors_for(kName); }
};

using AllCurves = ::testing::Types<Bls12_381Curve, Bn254Curve>;

// Names typed tests by curve ("Bls12_381Curve" -> "bls12_381").
struct CurveNames {
  template <class C>
  static std::string GetName(int) {
    return C::kName;
  }
};

// Random elements of any field of a tower.
template <class F>
struct Rand;
template <class P>
struct Rand<ff::Field<P>> {
  static ff::Field<P> get() { return ff::Field<P>::random(rng()); }
};
template <class T>
struct Rand<ff::Fp2<T>> {
  static ff::Fp2<T> get() { return {Rand<typename T::Fp>::get(), Rand<typename T::Fp>::get()}; }
};
template <class T>
struct Rand<ff::Fp6<T>> {
  static ff::Fp6<T> get() {
    return {Rand<ff::Fp2<T>>::get(), Rand<ff::Fp2<T>>::get(), Rand<ff::Fp2<T>>::get()};
  }
};
template <class T>
struct Rand<ff::Fp12<T>> {
  static ff::Fp12<T> get() { return {Rand<ff::Fp6<T>>::get(), Rand<ff::Fp6<T>>::get()}; }
};
template <class F>
F rand_elem() {
  return Rand<F>::get();
}

}  // namespace splitprove::testing

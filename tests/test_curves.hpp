#pragma once
// The curves the typed suites run over: one struct per curve, its engine and its known-answer
// vectors. A new curve adds a struct here and to kAllCurves' type list.
#include <gtest/gtest.h>

#include "ec/curves.hpp"
#include "test_util.hpp"

namespace splitprove::testing {

// Each is the curve's engine (ec/curves.hpp: fields, groups, pairing, subgroup checks) plus what
// only the tests need: the suite name, the tower's non-residue, the 2-adicity, psi and vectors.
struct Bls12_381Curve : ec::Bls12_381 {
  static constexpr const char* kName = "bls12_381";
  static constexpr uint64_t kXi0 = 1;
  static constexpr unsigned kTwoAdicity = 32;
  static G2::Jacobian psi(const G2::Jacobian& p) { return bls12_381::psi(p); }
  // The eigenvalue of psi on G2 (p mod r), as a multiplication.
  static G2::Jacobian psi_eigen(const G2::Jacobian& p) { return bls12_381::mul_by_x(p); }
  static const nlohmann::json& vectors() { return vectors_for(kName); }
};

struct Bn254Curve : ec::Bn254 {
  static constexpr const char* kName = "bn254";
  static constexpr uint64_t kXi0 = 9;
  static constexpr unsigned kTwoAdicity = 28;
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

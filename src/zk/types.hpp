#pragma once
// Groth16 keys and proofs, over an engine E (ec/curves.hpp: ec::Bls12_381, ec::Bn254).
//
// Conventions, the same everywhere in splitprove:
// - Points are affine (`inf` marks the identity); field elements are ff::Field values, i.e. they
//   *mean* the plain number and hold it in Montgomery form inside (`x.mont()` = x·R mod p,
//   `x.to_canonical()` = x). Readers convert from a file's representation, writers back.
// - Wire (variable) numbering is circom's: 0 = the constant 1, then the public outputs, the public
//   inputs, the private inputs and the internal wires; "public" = wires 1..n_public.
#include <cstdint>
#include <cstring>
#include <vector>

#include "util/memory.hpp"
#include "util/pod_array.hpp"

#include "ec/curves.hpp"

namespace splitprove::zk {

// The basis of a proving key's H points, and so which H step the prover runs:
//   odd_coset: H[i] = L^(2n)_(2i+1)(τ)/δ·G1 (snarkjs; scalars a·b - c on the odd coset,
//              poly::Domain::ab_minus_c_on_odd_coset). The only basis a .zkey can hold.
//   monomial:  H[i] = τ^i·Z(τ)/δ·G1 (bellman-style keys; scalars the coefficients of
//              h = (A·B - C)/Z, poly::h_coefficients: one NTT more).
enum class HBasis : uint8_t { odd_coset, monomial };

// Which QAP matrix a coefficient belongs to (the numbers are the .zkey's).
enum class Matrix : uint32_t { kA = 0, kB = 1 };

// One non-zero entry of the A or B matrix: value()·w[col] is a term of row `row`. The layout is a
// .zkey coefficient record's (section 4: matrix, row, wire as u32, then the value as stored there:
// the Montgomery limbs of coef·R, i.e. coef·R² mod r), 12 + 8·Fr::N bytes with no padding, so a
// mapped key's coefficients are used in place (io::read_zkey; util::PodArray reads them at any
// alignment). value() is the coefficient; scaled() is coef·R, which the prover multiplies by the
// witness and corrects once per row (zk::evaluate_ab).
template <class E>
struct Coefficient {
  using Fr = typename E::Fr;
  Matrix matrix;
  uint32_t row;  // constraint index; rows n_constraints..n_constraints+n_public bind the publics
  uint32_t col;  // wire index
  uint32_t stored[2 * Fr::N];  // the Montgomery limbs of coef·R, little-endian 32-bit words

  Coefficient() = default;
  Coefficient(Matrix m, uint32_t r, uint32_t c, const Fr& value) : matrix(m), row(r), col(c) {
    const auto limbs = Fr::mont_mul(value.mont(), Fr::R2);  // (coef·R)·R² / R = coef·R²
    std::memcpy(stored, limbs.data(), sizeof(stored));
  }
  // The limbs as stored (below r for a valid entry; io::read_zkey checks it).
  typename Fr::Repr stored_limbs() const {
    typename Fr::Repr limbs;
    std::memcpy(limbs.data(), stored, sizeof(stored));
    return limbs;
  }
  Fr scaled() const { return Fr::from_mont(stored_limbs()); }  // coef·R
  Fr value() const {  // one Montgomery reduction removes the factor R
    return Fr::from_mont(Fr::mont_mul(stored_limbs(), ff::from_u64<Fr::N>(1)));
  }
};

// A snarkjs Groth16 proving key (the content of sections 1-9 of a .zkey).
//   A[i] = u_i(τ)·G1, B1[i] = v_i(τ)·G1, B2[i] = v_i(τ)·G2 for every wire i;
//   IC[i] = (β·u_i(τ) + α·v_i(τ) + w_i(τ))/γ·G1 for the public wires 0..n_public;
//   C[j] = (β·u_i(τ) + α·v_i(τ) + w_i(τ))/δ·G1 for the private wires i = n_public+1+j;
//   H[i] = L^(2n)_(2i+1)(τ)/δ·G1, the odd Lagrange points of the 2n domain (snarkjs's H basis),
//   or τ^i·Z(τ)/δ·G1 for keys with h_basis = monomial (made by dev_setup only).
// Wires that do not occur in a matrix have the identity there.
template <class E>
struct ProvingKey {
  using G1Affine = typename E::G1Affine;
  using G2Affine = typename E::G2Affine;

  uint32_t n_vars = 0;       // wires, including wire 0
  uint32_t n_public = 0;     // public outputs + public inputs, not counting wire 0
  uint32_t domain_size = 0;  // power of two > n_constraints + n_public
  G1Affine alpha1, beta1, delta1;
  G2Affine beta2, gamma2, delta2;
  std::vector<G1Affine> ic;            // n_public + 1
  // The large arrays are read-only: owned (the setup, a key parsed from bytes) or the records and
  // points of a mapped .zkey used where they lie (io::read_zkey); copies of a key share them.
  util::PodArray<Coefficient<E>> coeffs;  // A and B entries, in file order (C is not stored)
  util::PodArray<G1Affine> a;   // n_vars
  util::PodArray<G1Affine> b1;  // n_vars
  util::PodArray<G2Affine> b2;  // n_vars
  util::PodArray<G1Affine> c;   // n_vars - n_public - 1 (a.k.a. L: private wires only)
  util::PodArray<G1Affine> h;   // domain_size
  HBasis h_basis = HBasis::odd_coset;  // what the points of h are (see HBasis)
};

// The verifier's part: e(A, B) = e(alpha, beta)·e(Σ pub_i·IC_i, gamma)·e(C, delta).
template <class E>
struct VerifyingKey {
  using G1Affine = typename E::G1Affine;
  using G2Affine = typename E::G2Affine;

  uint32_t n_public = 0;
  G1Affine alpha1;
  G2Affine beta2, gamma2, delta2;
  std::vector<G1Affine> ic;  // n_public + 1
};

template <class E>
struct Proof {
  typename E::G1Affine a;
  typename E::G2Affine b;
  typename E::G1Affine c;
};

template <class E>
VerifyingKey<E> verifying_key(const ProvingKey<E>& pk) {
  return VerifyingKey<E>{pk.n_public, pk.alpha1, pk.beta2, pk.gamma2, pk.delta2, pk.ic};
}

}  // namespace splitprove::zk

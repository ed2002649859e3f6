#pragma once
// Development setup: a Groth16 proving key for a circuit from random toxic waste drawn here and
// then forgotten. INSECURE by construction — whoever runs it could keep the waste and forge
// proofs — so it is for tests and benchmarks only. It writes the same key a snarkjs ceremony would
// (same coefficient rows, same H basis), so snarkjs can prove and verify with it too.
//
// With L_i the Lagrange basis of the domain H of size n (n > n_constraints + n_public) and the
// QAP rows: constraint rows 0..m-1 (A, B, C of the r1cs) and public-binding rows m + i with
// A = 1 on wire i (i = 0..n_public):
//   u_j = Σ_i A_ij·L_i(τ), v_j = Σ_i B_ij·L_i(τ), w_j = Σ_i C_ij·L_i(τ)
//   A_j = u_j·G1, B1_j = v_j·G1, B2_j = v_j·G2
//   IC_j = (β·u_j + α·v_j + w_j)/γ·G1 for j <= n_public, C_j = (β·u_j + α·v_j + w_j)/δ·G1 otherwise
//   H_i = L^(2n)_(2i+1)(τ)/δ·G1 (snarkjs's H basis; see zk/groth16.hpp), or with
//   h_basis = monomial H_i = τ^i·Z(τ)/δ·G1, i < n (bellman-style; such a key cannot go to a .zkey)
//
// The big point vectors are scalar multiples of the generators: dev_setup_scalars stops at their
// scalars, for a prover that makes the points where it uses them (the GPU: a 2^27 key is ~70 GiB
// of points, hours of host work, seconds on the device); dev_setup makes them on the host.
#include <string_view>
#include <vector>

#include "poly/domain.hpp"
#include "zk/r1cs.hpp"
#include "zk/groth16.hpp"

namespace splitprove::zk {

// The scalars of a key's point vectors: A_j = a[j]·G1, B1_j = b[j]·G1, B2_j = b[j]·G2,
// L_j = l[j]·G1 (private wires), H_i = h[i]·G1.
template <class E>
struct KeyScalars {
  std::vector<typename E::Fr> a, b, l, h;
  std::uint64_t bytes() const {
    return (a.capacity() + b.capacity() + l.capacity() + h.capacity()) * sizeof(typename E::Fr);
  }
};

// A key whose point vectors are still scalars: `pk` has everything but a, b1, b2, c and h (its
// sizes, α, β, δ, γ, IC, and the coefficient list when asked for).
template <class E>
struct ScalarKey {
  ProvingKey<E> pk;
  KeyScalars<E> scalars;
};

// The H basis's scalars at τ before the division by δ: L^(2n)_(2i+1)(τ) (odd_coset) or
// τ^i·Z(τ) (monomial), i < n.
template <class Fr>
std::vector<Fr> h_basis_at(const poly::Domain<Fr>& domain, const Fr& tau, HBasis basis);

// What the setup reads of a circuit: its sizes, a name for messages, and its terms, visited per
// constraint i and matrix m (0 = A, 1 = B, 2 = C) as f(wire, coefficient). rows_of reads an
// R1cs; circuit::setup_rows (circuit/r1cs.hpp) reads a recorded circuit in place, so that a key
// at 2^27 needs no second copy of its terms (~20 GiB) as an R1cs.
template <class Fr, class Visit>
struct SetupRows {
  std::string_view source;
  size_t n_constraints = 0, n_public = 0, n_wires = 0;
  Visit visit;  // visit(i, m, f)
};

template <class E>
auto rows_of(const R1cs<E>& r) {
  auto visit = [&r](size_t i, int m, auto&& f) {
    for (const auto& t : r.lc(i, m)) f(t.wire, t.coeff);
  };
  return SetupRows<typename E::Fr, decltype(visit)>{r.source, r.n_constraints, r.n_public(),
                                                   r.n_wires, visit};
}

// u, v, w at τ: the setup's sums over the terms, parallel over the wires (zk/setup_impl.hpp).
template <class E, class V>
ScalarKey<E> dev_setup_scalars(const SetupRows<typename E::Fr, V>& rows, const Progress& progress = {},
                               HBasis h_basis = HBasis::odd_coset, bool coefficients = true);
template <class E, class V>
ProvingKey<E> dev_setup(const SetupRows<typename E::Fr, V>& rows, const Progress& progress = {},
                        HBasis h_basis = HBasis::odd_coset);

template <class E>
ScalarKey<E> dev_setup_scalars(const R1cs<E>& r1cs, const Progress& progress = {},
                               HBasis h_basis = HBasis::odd_coset, bool coefficients = true);

template <class E>
ProvingKey<E> dev_setup(const R1cs<E>& r1cs, const Progress& progress = {},
                        HBasis h_basis = HBasis::odd_coset);

}  // namespace splitprove::zk

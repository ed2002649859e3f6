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
#include "zk/r1cs.hpp"
#include "zk/groth16.hpp"

namespace splitprove::zk {

template <class E>
ProvingKey<E> dev_setup(const R1cs<E>& r1cs, const Progress& progress = {},
                        HBasis h_basis = HBasis::odd_coset);

}  // namespace splitprove::zk

#pragma once
// Groth16 over a snarkjs-format proving key: the prover, the verifier, and the witness check.
//
// The prover computes exactly what snarkjs's does (so snarkjs verifies our proofs, and our keys,
// witnesses and proofs interoperate):
//   1. a_i = Σ_j A_ij·w_j, b_i = Σ_j B_ij·w_j for the rows i < n (n = domain size), from the
//      key's coefficient list, and c_i = a_i·b_i. (C is not in a .zkey; for a satisfying witness
//      a_i·b_i = C_i·w on the constraint rows, and the public-binding rows have B = 0 = C.)
//   2. a, b, c are the evaluations on H = <ω_n> of polynomials A, B, C of degree < n. Their
//      evaluations on the odd coset ω_2n·H are obtained by iNTT, scaling coefficient j by ω_2n^j,
//      NTT; there p_i = A·B - C. Since A·B - C = h·Z with Z = x^n - 1 = -2 on that coset, p_i =
//      -2·h(ω_2n^(2i+1)), and the key's H points L^(2n)_(2i+1)(τ)/δ already absorb the -1/2 and the
//      interpolation: Σ p_i·H_i = h(τ)·Z(τ)/δ (poly::Domain::ab_minus_c_on_odd_coset).
//   3. With fresh r, s from the OS CSPRNG:
//        π_A = α₁ + Σ_all w_i·A_i + r·δ₁
//        π_B = β₂ + Σ_all w_i·B2_i + s·δ₂           (B1 = β₁ + Σ w_i·B1_i + s·δ₁ in G1)
//        π_C = Σ_private w_i·C_i + Σ p_i·H_i + s·π_A + r·B1 - r·s·δ₁
//      The products with r and s use the constant-time multiplication (they are secrets).
// The verifier checks e(-π_A, π_B)·e(Σ pub_i·IC_i, γ₂)·e(π_C, δ₂)·e(α₁, β₂) = 1 with one shared
// final exponentiation, after checking that the proof's points are on their curves and in the
// prime-order subgroups and that the public inputs are as many as the key expects.
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "zk/types.hpp"

namespace splitprove::zk {

// Called with (stage name, fraction of the proof done) as work progresses; may be empty.
using Progress = std::function<void(const char* stage, double fraction)>;

template <class E>
struct PreparedVerifyingKey {
  VerifyingKey<E> vk;
  typename E::Pairing::G2Prepared beta, gamma, delta;
};

template <class E>
PreparedVerifyingKey<E> prepare(const VerifyingKey<E>& vk);

// True when the proof verifies. Throws Error when the public input count does not match the key;
// returns false for a proof with points off the curve / outside the subgroup or a failed check.
template <class E>
bool verify(const PreparedVerifyingKey<E>& pvk, std::span<const typename E::Fr> public_inputs,
            const Proof<E>& proof);

// Why a proof was rejected, for messages ("pi_b not in the subgroup", "pairing check failed").
template <class E>
std::optional<std::string> verify_reason(const PreparedVerifyingKey<E>& pvk,
                                         std::span<const typename E::Fr> public_inputs,
                                         const Proof<E>& proof);

// Proves with fresh randomness from the OS CSPRNG. The witness has one value per key variable,
// w[0] = 1 (Error otherwise).
template <class E>
Proof<E> prove(const ProvingKey<E>& pk, std::span<const typename E::Fr> witness,
               const Progress& progress = {});

// The same with given r and s (for tests that need reproducible proofs; never for real use).
template <class E>
Proof<E> prove_with(const ProvingKey<E>& pk, std::span<const typename E::Fr> witness,
                    const typename E::Fr& r, const typename E::Fr& s,
                    const Progress& progress = {});

// Public inputs of a witness: w[1..n_public].
template <class E>
std::vector<typename E::Fr> public_inputs(const ProvingKey<E>& pk,
                                          std::span<const typename E::Fr> witness) {
  return {witness.begin() + 1, witness.begin() + 1 + pk.n_public};
}

}  // namespace splitprove::zk

#pragma once
// The Groth16 prover cut into the stages of the pipeline (DESIGN §1, §3). zk::prove_with runs
// through exactly these functions, so the pipeline and the one-shot prover share one code path.
//
//   evaluate_ab    synthesis for a .zkey: a = A·z, b = B·z from the key's coefficients (no c: for a
//                  satisfying assignment c = a∘b on every row, so it is formed where it is used)
//   g1 stage       the "GPU stage" (here on the CPU): consumes a, b and z
//                    h_scalars:  a, b -> c = a∘b in scratch, then p = a·b - c on the odd coset
//                                (or h's coefficients for monomial-basis keys), in a (b and the
//                                scratch are dead after)
//                    msm_h:      Σ p_i·H_i (a is dead after)
//                    msm_z:      Σ z·A, Σ z·B1, Σ_private z·C (L)
//   g2 input       compact_g2_scalars: the scalars of the B-dense wires only (those whose B2 point
//   is
//                  not the identity), copied out of z into a small buffer the G2 stage owns; never
//                  a pointer into z, so z can die with the g1 stage.
//   g2 stage       msm_g2: Σ z_i·B2_i over the compact input and the key's compact B2 bases
//   finalize       assemble: the randomized proof from both stages' results and r, s;
//                  assemble_verified also checks it against the prepared verifying key and
//                  throws instead of releasing a proof that does not verify.
//
// Randomness: r and s come from the caller (util::OsRng in production); the products with them use
// the constant-time scalar multiplication. Nothing here branches on r or s.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "msm/msm.hpp"
#include "poly/domain.hpp"
#include "zk/groth16.hpp"
#include "zk/types.hpp"

namespace splitprove::zk {

// The G1 results of the GPU stage, before any randomness.
template <class E>
struct G1Results {
  typename E::G1Jacobian a;   // Σ_all z_i·A_i
  typename E::G1Jacobian b1;  // Σ_all z_i·B1_i
  typename E::G1Jacobian l;   // Σ_private z_i·C_i
  typename E::G1Jacobian h;   // Σ p_i·H_i
};

// The key's B2 points that are not the identity and their wire numbers, in wire order: the bases
// of the G2 MSM. Made once per proving key; the G2 input of a partition is the matching scalars.
template <class E>
struct G2Bases {
  std::vector<std::uint32_t> wires;
  std::vector<typename E::G2Affine> bases;

  static G2Bases of(const ProvingKey<E>& pk);
  std::size_t size() const { return wires.size(); }
};

// a = A·z, b = B·z on every row of the key's domain (rows past the key's rows stay as given, so the
// spans must arrive zeroed). z has n_vars values; a, b have domain_size.
template <class E>
void evaluate_ab(const ProvingKey<E>& pk, std::span<const typename E::Fr> z,
                 std::span<typename E::Fr> a, std::span<typename E::Fr> b);

// The H scalars in place, for the key's H basis, from a = A·z and b = B·z on the domain: c is
// scratch of the same length (its contents are ignored); it first gets c = a∘b, which is C·z on
// every row for a satisfying assignment (for one that does not satisfy, the proof then does not
// verify). On return a holds what msm_h takes (odd_coset: p = a·b - c on the odd coset; monomial:
// h's coefficients, poly::h_coefficients); b and c hold nothing the prover needs any more.
template <class E>
void h_scalars(const poly::Domain<typename E::Fr>& domain, std::span<typename E::Fr> a,
               std::span<typename E::Fr> b, std::span<typename E::Fr> c,
               HBasis basis = HBasis::odd_coset);

// The G1 MSMs. With a workspace (msm::Workspace) the calls reuse each other's scratch: pass the
// same one to msm_h and msm_z; msm_z's three MSMs share one in any case.
template <class E>
typename E::G1Jacobian msm_h(const ProvingKey<E>& pk, std::span<const typename E::Fr> p,
                             msm::Workspace<typename E::G1>* ws = nullptr);

// Σ z·A, Σ z·B1 and Σ_private z·C into `out` (its h is left alone).
template <class E>
void msm_z(const ProvingKey<E>& pk, std::span<const typename E::Fr> z, G1Results<E>& out,
           msm::Workspace<typename E::G1>* ws = nullptr);

// The whole g1 stage on spans (the pipeline's CPU backend runs the three steps itself so that it
// can free each buffer as soon as it is dead).
template <class E>
G1Results<E> g1_stage(const ProvingKey<E>& pk, const poly::Domain<typename E::Fr>& domain,
                      std::span<const typename E::Fr> z, std::span<typename E::Fr> a,
                      std::span<typename E::Fr> b, std::span<typename E::Fr> c);

// out[k] = z[bases.wires[k]]; out.size() must equal bases.size(). Returns how many of the values
// are neither 0 nor 1 (the G2 MSM's tail).
template <class E>
std::size_t compact_g2_scalars(const G2Bases<E>& bases, std::span<const typename E::Fr> z,
                               std::span<typename E::Fr> out);

template <class E>
typename E::G2Jacobian msm_g2(const G2Bases<E>& bases, std::span<const typename E::Fr> scalars);

// The proof (π_A, π_B, π_C) from the stage results and the randomizers r, s (zk/groth16.hpp).
template <class E>
Proof<E> assemble(const ProvingKey<E>& pk, const G1Results<E>& g1, const typename E::G2Jacobian& b2,
                  const typename E::Fr& r, const typename E::Fr& s);

// assemble, then verify against `pvk` and the public inputs; throws Error("<what>: the proof does
// not verify (<reason>)") rather than return a proof that fails.
template <class E>
Proof<E> assemble_verified(const ProvingKey<E>& pk, const PreparedVerifyingKey<E>& pvk,
                           std::span<const typename E::Fr> public_inputs, const G1Results<E>& g1,
                           const typename E::G2Jacobian& b2, const typename E::Fr& r,
                           const typename E::Fr& s, const std::string& what);

// Memory the stages allocate from the heap besides their inputs and outputs (MSM scratch), for the
// pipeline's admission reservation (DESIGN §1.5): the g1 stage (its largest MSM) and the g2 stage.
template <class E>
std::uint64_t g1_stage_scratch_bytes(const ProvingKey<E>& pk);
template <class E>
std::uint64_t g2_stage_scratch_bytes(const G2Bases<E>& bases);
// The same when at most `max_tail` of the scalars can be other than 0 and 1 (the MSM's scratch
// depends only on its tail): the bound for max_tail terms, at most the one for every base.
template <class E>
std::uint64_t g2_stage_scratch_bytes(const G2Bases<E>& bases, std::size_t max_tail);

}  // namespace splitprove::zk

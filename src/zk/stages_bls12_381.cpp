// The prover's stages (zk/stages.hpp) instantiated for BLS12-381.
#include "zk/curves.hpp"
#include "zk/stages_impl.hpp"

namespace splitprove::zk {

using E = Bls12_381;
using Fr = E::Fr;
template struct G2Bases<E>;
template void evaluate_abc<E>(const ProvingKey<E>&, std::span<const Fr>, std::span<Fr>,
                              std::span<Fr>, std::span<Fr>);
template void h_scalars<E>(const poly::Domain<Fr>&, std::span<Fr>, std::span<Fr>, std::span<Fr>,
                           HBasis);
template E::G1Jacobian msm_h<E>(const ProvingKey<E>&, std::span<const Fr>);
template void msm_z<E>(const ProvingKey<E>&, std::span<const Fr>, G1Results<E>&);
template G1Results<E> g1_stage<E>(const ProvingKey<E>&, const poly::Domain<Fr>&,
                                  std::span<const Fr>, std::span<Fr>, std::span<Fr>, std::span<Fr>);
template void compact_g2_scalars<E>(const G2Bases<E>&, std::span<const Fr>, std::span<Fr>);
template E::G2Jacobian msm_g2<E>(const G2Bases<E>&, std::span<const Fr>);
template Proof<E> assemble<E>(const ProvingKey<E>&, const G1Results<E>&, const E::G2Jacobian&,
                              const Fr&, const Fr&);
template Proof<E> assemble_verified<E>(const ProvingKey<E>&, const PreparedVerifyingKey<E>&,
                                       std::span<const Fr>, const G1Results<E>&,
                                       const E::G2Jacobian&, const Fr&, const Fr&,
                                       const std::string&);
template std::uint64_t g1_stage_scratch_bytes<E>(const ProvingKey<E>&);
template std::uint64_t g2_stage_scratch_bytes<E>(const G2Bases<E>&);

}  // namespace splitprove::zk

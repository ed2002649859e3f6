// Groth16 prover, verifier and development setup instantiated for BLS12-381.
#include "zk/curves.hpp"
#include "zk/groth16_impl.hpp"
#include "zk/setup_impl.hpp"

namespace splitprove::zk {

using E = Bls12_381;
template PreparedVerifyingKey<E> prepare<E>(const VerifyingKey<E>&);
template bool verify<E>(const PreparedVerifyingKey<E>&, std::span<const E::Fr>, const Proof<E>&);
template std::optional<std::string> verify_reason<E>(const PreparedVerifyingKey<E>&,
                                                     std::span<const E::Fr>, const Proof<E>&);
template Proof<E> prove<E>(const ProvingKey<E>&, std::span<const E::Fr>, const Progress&);
template Proof<E> prove_with<E>(const ProvingKey<E>&, std::span<const E::Fr>, const E::Fr&,
                                const E::Fr&, const Progress&);
template ProvingKey<E> dev_setup<E>(const io::R1cs<E>&, const Progress&, HBasis);

}  // namespace splitprove::zk

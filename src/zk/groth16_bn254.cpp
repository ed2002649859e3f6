// Groth16 prover, verifier and development setup instantiated for BN254.
#include "ec/curves.hpp"
#include "zk/groth16_impl.hpp"
#include "zk/setup_impl.hpp"

namespace splitprove::zk {

SPLITPROVE_GROTH16_INSTANTIATE(ec::Bn254)

}  // namespace splitprove::zk

// The prover's stages (zk/stages.hpp) instantiated for BN254.
#include "ec/curves.hpp"
#include "zk/stages_impl.hpp"

namespace splitprove::zk {

SPLITPROVE_STAGES_INSTANTIATE(ec::Bn254)

}  // namespace splitprove::zk

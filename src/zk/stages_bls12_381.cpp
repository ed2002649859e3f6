// The prover's stages (zk/stages.hpp) instantiated for BLS12-381.
#include "ec/curves.hpp"
#include "zk/stages_impl.hpp"

namespace splitprove::zk {

SPLITPROVE_STAGES_INSTANTIATE(ec::Bls12_381)

}  // namespace splitprove::zk

// The pipeline (prover stages and engine) instantiated for BN254.
#include "pipeline/engine_impl.hpp"
#include "zk/curves.hpp"

namespace splitprove::pipeline {

SPLITPROVE_PIPELINE_INSTANTIATE(zk::Bn254)

}  // namespace splitprove::pipeline

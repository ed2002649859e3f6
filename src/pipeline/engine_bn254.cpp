// The pipeline (prover stages and engine) instantiated for BN254.
#include "pipeline/engine_workers.hpp"
#include "ec/curves.hpp"

namespace splitprove::pipeline {

SPLITPROVE_PIPELINE_INSTANTIATE(ec::Bn254)

}  // namespace splitprove::pipeline

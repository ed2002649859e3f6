// The pipeline (prover stages and engine) instantiated for BLS12-381.
#include "pipeline/engine_workers.hpp"
#include "ec/curves.hpp"

namespace splitprove::pipeline {

SPLITPROVE_PIPELINE_INSTANTIATE(ec::Bls12_381)

}  // namespace splitprove::pipeline

// The pipeline (prover stages and engine) instantiated for BLS12-381.
#include "pipeline/engine_impl.hpp"
#include "zk/curves.hpp"

namespace splitprove::pipeline {

using E = zk::Bls12_381;
template struct Key<E>;
template struct PendingProof<E>;
template class Prover<E>;
template class Engine<E>;
template PartitionCost partition_cost<E>(const circuit::Shape&, const Key<E>&,
                                         const mem::BufferOptions&);
template void check_shape<E>(const circuit::Shape&, const Key<E>&, const std::string&);
template std::shared_ptr<GpuStage<E>> cpu_gpu_stage<E>();
template std::shared_ptr<G2Stage<E>> cpu_g2_stage<E>();

}  // namespace splitprove::pipeline

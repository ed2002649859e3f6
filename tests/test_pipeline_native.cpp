// The pipeline engine on a native circuit (the PoRep-shaped benchmark circuit through
// circuit::NativeSource): every partition's proof verifies for its own public inputs and not for
// another's; a partition whose witness breaks a constraint fails only its job, the message names
// the partition and the constraint, and every byte goes back to the budget; under a budget of one
// partition's life the engine still finishes.
#include <gtest/gtest.h>

#include "circuit/native_source.hpp"
#include "circuit/porep.hpp"
#include "circuit/r1cs.hpp"
#include "pipeline/engine.hpp"
#include "pipeline_test_util.hpp"
#include "splitprove/error.hpp"
#include "zk/groth16.hpp"
#include "zk/setup.hpp"

using namespace splitprove;
using splitprove::testing::items_held;
using splitprove::testing::small_porep_params;
using splitprove::testing::expect_valid_proofs;
using E = ec::Bls12_381;
using Fr = E::Fr;

namespace {

struct Native {
  circuit::PorepParams params = small_porep_params(3);
  std::shared_ptr<const circuit::ConstraintSystem<Fr>> cs = [&] {
    auto rec = circuit::record_porep<Fr>(params);
    return std::make_shared<const circuit::ConstraintSystem<Fr>>(std::move(rec.cs));
  }();
  std::shared_ptr<const zk::ProvingKey<E>> pk =
      std::make_shared<const zk::ProvingKey<E>>(zk::dev_setup<E>(circuit::to_r1cs<E>(*cs)));
  std::shared_ptr<const pipeline::Key<E>> key = pipeline::Key<E>::prepare(pk);
};

const Native& native() {
  static Native n;
  return n;
}

}  // namespace

TEST(PipelineNative, PorepPartitionsProveAndVerify) {
  const auto& nv = native();
  pipeline::EngineConfig cfg;
  cfg.synthesis_workers = 2;
  cfg.gpu_workers = 2;
  pipeline::Engine<E> engine(cfg);
  auto src_a = circuit::porep_source<Fr>(nv.params, nv.cs);
  EXPECT_EQ(src_a->phases().partitions, 0u);
  auto a = engine.submit({src_a, nv.key, 4});
  auto b = engine.submit({circuit::porep_source<Fr>(small_porep_params(4), nv.cs), nv.key, 3});
  auto ra = engine.wait(a);
  auto rb = engine.wait(b);
  expect_valid_proofs<E>(ra, *nv.key, 4);
  expect_valid_proofs<E>(rb, *nv.key, 3);
  // The source timed each of its partitions' phases (witness, a and b, check): 4 partitions,
  // every phase took time.
  const auto ph = src_a->phases();
  EXPECT_EQ(ph.partitions, 4u);
  EXPECT_GT(ph.witness_s, 0.0);
  EXPECT_GT(ph.ab_s, 0.0);
  EXPECT_GT(ph.check_s, 0.0);
  // Different data seeds give different statements (the Merkle roots differ).
  EXPECT_NE(ra.publics[0], rb.publics[0]);
  // Left: the workers' scratch and the pool's idle recycled pages.
  EXPECT_EQ(items_held(engine), 0u);
}

TEST(PipelineNative, BrokenConstraintFailsOnlyItsJob) {
  const auto& nv = native();
  const auto p = nv.params;
  const auto shape = nv.cs->shape();
  const auto n_private = std::uint32_t(shape.n_vars - 1 - shape.n_public);
  // Partition 2's last private variable (the data tail's last bit or packing) is changed after
  // the circuit computed it: a constraint that defines it no longer holds.
  auto gen = [p, n_private](circuit::Synthesizer<Fr>& syn, std::size_t partition) {
    circuit::porep_circuit(syn, p, circuit::porep_witness<Fr>(p, partition), partition);
    if (partition == 2) {
      const circuit::Variable last{n_private - 1, circuit::Variable::kPrivate};
      syn.set(last, syn.value(last) + Fr::from_u64(2));
    }
  };
  auto bad = std::make_shared<circuit::NativeSource<Fr>>(
      nv.cs, gen, circuit::NativeSource<Fr>::Options{true, 0});
  pipeline::EngineConfig cfg;
  cfg.synthesis_workers = 2;
  // A budget of exactly one partition: the failing job and the good one share it.
  // (The workers' scratch is sized for both sources: the good one's synthesis needs scratch.)
  pipeline::Engine<E> probe(cfg);
  auto good = circuit::porep_source<Fr>(p, nv.cs);
  const auto cost = probe.cost_of({bad, nv.key, 1});
  ASSERT_EQ(cost.life(), probe.cost_of({good, nv.key, 1}).life());
  cfg.fit_scratch(cost);
  cfg.fit_scratch(probe.cost_of({good, nv.key, 1}));
  cfg.host_budget = cfg.worker_scratch() + cost.life();
  pipeline::Engine<E> engine(cfg);
  auto id_bad = engine.submit({bad, nv.key, 5});
  auto id_good = engine.submit({good, nv.key, 3});
  auto rb = engine.wait(id_bad);
  EXPECT_FALSE(rb.ok);
  EXPECT_NE(rb.error.find("partition 2"), std::string::npos) << rb.error;
  EXPECT_NE(rb.error.find("constraint"), std::string::npos) << rb.error;
  EXPECT_NE(rb.error.find("unsatisfied"), std::string::npos) << rb.error;
  expect_valid_proofs<E>(engine.wait(id_good), *nv.key, 3);
  // Only the workers' scratch and the pool's idle recycled pages (tag pinned) are left.
  EXPECT_EQ(items_held(engine), 0u);
  auto books = engine.budget().books();
  EXPECT_EQ(books[mem::Tag::scratch].bytes, cfg.worker_scratch());
  EXPECT_LE(books.peak, cfg.host_budget);
}

// The host keeps no c: the GPU stage forms c = a∘b, which is C·z only for a satisfying assignment.
// A source that does not check (NativeSource::Options::check off) hands a broken assignment on; its
// H then belongs to a C other than the key's, and the proof is refused at finalize. The other
// partitions of the job and the other job are proved.
TEST(PipelineNative, AnUncheckedBrokenAssignmentFailsVerification) {
  const auto& nv = native();
  const auto p = nv.params;
  const auto shape = nv.cs->shape();
  // A private wire the circuit does not force to 0 or 1 (a changed binary wire would be refused
  // at synthesis by the G2 tail's bound instead).
  std::size_t wire = shape.n_vars - 1;
  while (wire > shape.n_public && nv.cs->binary[wire]) --wire;
  ASSERT_GT(wire, shape.n_public);
  const circuit::Variable v{std::uint32_t(wire - 1 - shape.n_public), circuit::Variable::kPrivate};
  auto gen = [p, v](circuit::Synthesizer<Fr>& syn, std::size_t partition) {
    circuit::porep_circuit(syn, p, circuit::porep_witness<Fr>(p, partition), partition);
    if (partition == 1) syn.set(v, syn.value(v) + Fr::from_u64(5));
  };
  auto bad = std::make_shared<circuit::NativeSource<Fr>>(
      nv.cs, gen, circuit::NativeSource<Fr>::Options{false, 0});
  auto good = circuit::porep_source<Fr>(p, nv.cs);
  pipeline::EngineConfig cfg;
  cfg.synthesis_workers = 2;
  pipeline::Engine<E> engine(cfg);
  auto id_bad = engine.submit({bad, nv.key, 3});
  auto id_good = engine.submit({good, nv.key, 2});
  auto rb = engine.wait(id_bad);
  EXPECT_FALSE(rb.ok);
  EXPECT_NE(rb.error.find("partition 1"), std::string::npos) << rb.error;
  EXPECT_NE(rb.error.find("does not verify"), std::string::npos) << rb.error;
  expect_valid_proofs<E>(engine.wait(id_good), *nv.key, 2);
  EXPECT_EQ(items_held(engine), 0u);
}

// The CPU G2 stage's scratch is sized for the B-dense wires the circuit does not force to 0 or 1
// (the G2 MSM's tail), and a partition whose assignment breaks that fails at synthesis, before its
// G2 MSM could outgrow the reservation.
TEST(PipelineNative, TheG2ScratchIsSizedForTheTailTheCircuitAllows) {
  const auto& nv = native();
  const auto p = nv.params;
  pipeline::Engine<E> probe(pipeline::EngineConfig{});
  const auto cost = probe.cost_of({circuit::porep_source<Fr>(p, nv.cs), nv.key, 1});
  std::size_t tail = 0;
  for (const std::uint32_t w : nv.key->g2.wires) tail += !nv.cs->binary[w];
  EXPECT_EQ(cost.g2_tail, tail);
  EXPECT_LT(cost.g2_tail, cost.n_dense);
  EXPECT_EQ(cost.g2_scratch, zk::g2_stage_scratch_bytes<E>(nv.key->g2, tail));
  EXPECT_LT(cost.g2_scratch, zk::g2_stage_scratch_bytes<E>(nv.key->g2));

  const auto shape = nv.cs->shape();
  auto gen = [p, shape, &nv](circuit::Synthesizer<Fr>& syn, std::size_t partition) {
    circuit::porep_circuit(syn, p, circuit::porep_witness<Fr>(p, partition), partition);
    if (partition != 1) return;
    for (const std::uint32_t w : nv.key->g2.wires)
      if (nv.cs->binary[w] && w > shape.n_public)
        syn.set({std::uint32_t(w - 1 - shape.n_public), circuit::Variable::kPrivate},
                Fr::from_u64(2));
  };
  // The source does not check the constraints, so only the tail check can catch it.
  auto bad = std::make_shared<circuit::NativeSource<Fr>>(
      nv.cs, gen, circuit::NativeSource<Fr>::Options{false, 0});
  pipeline::Engine<E> engine(pipeline::EngineConfig{});
  const auto r = engine.wait(engine.submit({bad, nv.key, 2}));
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("partition 1"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("neither 0 nor 1"), std::string::npos) << r.error;
  // Left: the workers' scratch and the pool's idle recycled pages.
  EXPECT_EQ(items_held(engine), 0u);
}

// The pipeline engine on circom-style inputs (a proving key, one witness per partition, optionally
// the .r1cs): correct proofs for every partition, the split start/finish API's ownership (a pending
// proof holds only the compact G2 input and small results), failures and cancellation that fail
// only their job and give every byte back, a budget of exactly one partition without deadlock, and
// queue bounds / books that never exceed what the memory model allows.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>
#include <mutex>

#include <atomic>
#include <chrono>
#include <thread>

#include "io/json.hpp"
#include "io/r1cs.hpp"
#include "io/wtns.hpp"
#include "io/zkey.hpp"
#include "mem/model.hpp"
#include "mem/units.hpp"
#include "msm/msm.hpp"
#include "harness/bench_circuits.hpp"
#include "harness/run.hpp"
#include "pipeline/circom_source.hpp"
#include "pipeline/engine.hpp"
#include "splitprove/error.hpp"
#include "pipeline_test_util.hpp"
#include "test_util.hpp"
#include "zk/groth16.hpp"
#include "zk/setup.hpp"

using namespace splitprove;
using namespace std::chrono_literals;
using E = ec::Bls12_381;
using Fr = E::Fr;
using splitprove::testing::rng;

using splitprove::testing::items_held;

namespace {

std::string fixture(const std::string& name) {
  return splitprove::testing::source_dir() + "/tests/fixtures/" + name;
}

// x_{i+1} = x_i^2 + x_i + 7 for `steps` steps, out = x_steps public, y public with y·1 = y;
// wires: 0 = 1, 1 = out, 2 = y, 3 = x_0, 4.. = x_i.
std::shared_ptr<io::R1cs<E>> chain_r1cs(uint32_t steps) {
  auto cs = std::make_shared<io::R1cs<E>>();
  cs->source = "chain.r1cs";
  cs->n_pub_out = 1;
  cs->n_pub_in = 1;
  cs->n_prv_in = 1;
  cs->n_wires = 4 + steps;
  cs->offsets.push_back(0);
  auto push = [&](std::vector<io::Term<E>> a, std::vector<io::Term<E>> b,
                  std::vector<io::Term<E>> c) {
    for (auto* lc : {&a, &b, &c}) {
      cs->terms.insert(cs->terms.end(), lc->begin(), lc->end());
      cs->offsets.push_back(cs->terms.size());
    }
    ++cs->n_constraints;
  };
  for (uint32_t i = 0; i < steps; ++i) {
    uint32_t xi = 3 + i, xn = 4 + i;
    push({{xi, Fr::one()}}, {{xi, Fr::one()}, {0, Fr::one()}},
         {{xn, Fr::one()}, {0, -Fr::from_u64(7)}});
  }
  push({{3 + steps, Fr::one()}}, {{0, Fr::one()}}, {{1, Fr::one()}});
  push({{2, Fr::one()}}, {{0, Fr::one()}}, {{2, Fr::one()}});
  return cs;
}

io::Witness<E> chain_witness(uint32_t steps, uint64_t x0, uint64_t y, const std::string& name) {
  io::Witness<E> w;
  w.source = name;
  auto& v = w.values;
  v.resize(4 + steps);
  v[0] = Fr::one();
  v[2] = Fr::from_u64(y);
  v[3] = Fr::from_u64(x0);
  for (uint32_t i = 0; i < steps; ++i) v[4 + i] = v[3 + i].square() + v[3 + i] + Fr::from_u64(7);
  v[1] = v[3 + steps];
  return w;
}

// One chain circuit with its development key, shared by the tests (setup is the slow part).
struct Chain {
  static constexpr uint32_t kSteps = 40;
  std::shared_ptr<io::R1cs<E>> r1cs = chain_r1cs(kSteps);
  std::shared_ptr<const zk::ProvingKey<E>> pk =
      std::make_shared<const zk::ProvingKey<E>>(zk::dev_setup<E>(*r1cs));
  std::shared_ptr<const pipeline::Key<E>> key = pipeline::Key<E>::prepare(pk);

  std::vector<io::Witness<E>> witnesses(std::size_t n, uint64_t seed) const {
    std::vector<io::Witness<E>> ws;
    for (std::size_t i = 0; i < n; ++i)
      ws.push_back(chain_witness(kSteps, seed + 3 * i, seed * 7 + i, "w" + std::to_string(i)));
    return ws;
  }
  std::shared_ptr<pipeline::CircomSource<E>> source(std::vector<io::Witness<E>> ws,
                                                    bool with_r1cs = true) const {
    return std::make_shared<pipeline::CircomSource<E>>(pk, std::move(ws),
                                                       with_r1cs ? r1cs : nullptr, "chain");
  }
};

const Chain& chain() {
  static Chain c;
  return c;
}

// Checks every proof of a finished job: it verifies for its own public inputs, and not for the
// next partition's (the proofs are bound to their statements).
void expect_valid(const pipeline::JobResult<E>& r, const pipeline::Key<E>& key,
                  const std::vector<io::Witness<E>>& ws) {
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.proofs.size(), ws.size());
  for (std::size_t i = 0; i < ws.size(); ++i) {
    SCOPED_TRACE(i);
    auto pub = zk::public_inputs<E>(*key.pk, ws[i].values);
    EXPECT_EQ(r.publics[i], pub);
    EXPECT_TRUE(zk::verify<E>(key.pvk, pub, r.proofs[i]));
    if (ws.size() > 1) {
      auto other = zk::public_inputs<E>(*key.pk, ws[(i + 1) % ws.size()].values);
      if (other != pub) EXPECT_FALSE(zk::verify<E>(key.pvk, other, r.proofs[i]));
    }
  }
}

// A source that takes its time (and watches the stop token), around another one.
class SlowSource final : public circuit::PartitionSource<Fr> {
 public:
  SlowSource(std::shared_ptr<const circuit::PartitionSource<Fr>> inner, std::chrono::milliseconds d)
      : inner_(std::move(inner)), delay_(d) {}
  circuit::Shape shape() const override { return inner_->shape(); }
  std::string describe() const override { return "slow " + inner_->describe(); }
  void synthesize(std::size_t p, std::span<Fr> z, std::span<Fr> a, std::span<Fr> b,
                  const std::stop_token& stop) const override {
    started.fetch_add(1);
    for (auto t = 0ms; t < delay_ && !stop.stop_requested(); t += 5ms)
      std::this_thread::sleep_for(5ms);
    if (stop.stop_requested()) return;
    inner_->synthesize(p, z, a, b, stop);
  }
  mutable std::atomic<int> started{0};

 private:
  std::shared_ptr<const circuit::PartitionSource<Fr>> inner_;
  std::chrono::milliseconds delay_;
};

// A G2 stage that is slower than it needs to be (stands for a slow device / few cores).
class SlowG2 final : public pipeline::G2Stage<E> {
 public:
  explicit SlowG2(std::chrono::milliseconds d) : delay_(d) {}
  std::string name() const override { return "slow-cpu"; }
  E::G2Jacobian run(const pipeline::Key<E>& key, std::span<const Fr> compact) override {
    std::this_thread::sleep_for(delay_);
    return inner_->run(key, compact);
  }

 private:
  std::chrono::milliseconds delay_;
  std::shared_ptr<pipeline::G2Stage<E>> inner_ = pipeline::cpu_g2_stage<E>();
};

// A GPU stage that gives its inputs back as a device stage does (each buffer dies whole once it
// is "uploaded", its pages going back to the engine's pool), computing on the CPU.
class ReleasingGpu final : public pipeline::GpuStage<E> {
 public:
  std::string name() const override { return "releasing-cpu"; }
  zk::G1Results<E> run(const pipeline::Key<E>& key, mem::Buffer<Fr> z, mem::Buffer<Fr> a,
                       mem::Buffer<Fr> b) override {
    zk::G1Results<E> out;
    std::vector<Fr> c(a.size());  // scratch: h_scalars forms c = a∘b
    zk::h_scalars<E>(key.domain, a.span(), b.span(), std::span<Fr>(c), key.pk->h_basis);
    b.reset();
    out.h = zk::msm_h<E>(*key.pk, a.span());
    a.reset();
    zk::msm_z<E>(*key.pk, z.span(), out);
    z.reset();
    return out;
  }
};

// Stages that fail on their n-th call (a device error, say).
class FailingGpu final : public pipeline::GpuStage<E> {
 public:
  explicit FailingGpu(int n) : n_(n) {}
  std::string name() const override { return "failing"; }
  zk::G1Results<E> run(const pipeline::Key<E>& key, mem::Buffer<Fr> z, mem::Buffer<Fr> a,
                       mem::Buffer<Fr> b) override {
    if (++calls_ == n_) throw Error("device lost");
    return inner_->run(key, std::move(z), std::move(a), std::move(b));
  }

 private:
  int n_;
  std::atomic<int> calls_{0};
  std::shared_ptr<pipeline::GpuStage<E>> inner_ = pipeline::cpu_gpu_stage<E>();
};

class FailingG2 final : public pipeline::G2Stage<E> {
 public:
  explicit FailingG2(int n) : n_(n) {}
  std::string name() const override { return "failing"; }
  E::G2Jacobian run(const pipeline::Key<E>& key, std::span<const Fr> compact) override {
    if (++calls_ == n_) throw Error("G2 device lost");
    return inner_->run(key, compact);
  }

 private:
  int n_;
  std::atomic<int> calls_{0};
  std::shared_ptr<pipeline::G2Stage<E>> inner_ = pipeline::cpu_g2_stage<E>();
};

}  // namespace

TEST(PipelineProver, SplitStartFinishOwnsOnlyTheCompactInput) {
  const auto& ch = chain();
  auto ws = ch.witnesses(1, 5);
  auto src = ch.source(ws);
  const auto cost = pipeline::partition_cost<E>(src->shape(), *ch.key);
  ASSERT_EQ(cost.ab, 2 * mem::Buffer<Fr>::bytes_for(src->shape().domain_size, {}));
  ASSERT_EQ(cost.n_dense, ch.key->g2.size());
  ASSERT_LT(cost.n_dense, ch.pk->n_vars);  // the chain's B reads only x_i and wire 0

  mem::MemoryBudget budget(cost.life(), "test");
  pipeline::Prover<E> prover(ch.key, pipeline::cpu_gpu_stage<E>(), pipeline::cpu_g2_stage<E>());
  auto part = prover.synthesize(*src, 0, cost, budget.reserve(cost.life(), mem::Tag::synthesis));
  EXPECT_EQ(budget.books().used, cost.life());
  auto pending = prover.start(std::move(part), cost);
  // a, b and z are gone; the pending proof holds the compact input and the results.
  EXPECT_EQ(budget.books().used, cost.after_gpu());
  EXPECT_EQ(pending.held_bytes(), cost.after_gpu());
  EXPECT_EQ(pending.g2_input.size(), cost.n_dense);
  EXPECT_EQ(budget.books()[mem::Tag::g2].bytes + budget.books()[mem::Tag::synthesis].bytes,
            cost.g2_input + cost.result);
  prover.run_g2(pending);
  EXPECT_EQ(budget.books().used, cost.result);
  auto pub = pending.publics;
  auto proof = prover.finish(std::move(pending), "chain p0");
  EXPECT_EQ(budget.books().used, 0u);
  EXPECT_TRUE(zk::verify<E>(ch.key->pvk, pub, proof));
  // Tampered: another statement, or a moved point, is rejected.
  auto bad_pub = pub;
  bad_pub[0] += Fr::one();
  EXPECT_FALSE(zk::verify<E>(ch.key->pvk, bad_pub, proof));
  auto bad = proof;
  bad.a = (bad.a.to_jacobian() + ch.pk->alpha1.to_jacobian()).to_affine();
  EXPECT_FALSE(zk::verify<E>(ch.key->pvk, pub, bad));
}

TEST(PipelineProver, FinishRefusesAProofThatDoesNotVerify) {
  const auto& ch = chain();
  auto ws = ch.witnesses(1, 9);
  ws[0].values[5] += Fr::one();  // x_2 wrong: constraint 1 fails
  auto src = ch.source(ws, /*with_r1cs=*/false);
  const auto cost = pipeline::partition_cost<E>(src->shape(), *ch.key);
  mem::MemoryBudget budget(cost.life(), "test");
  pipeline::Prover<E> prover(ch.key, pipeline::cpu_gpu_stage<E>(), pipeline::cpu_g2_stage<E>());
  auto pending = prover.start(
      prover.synthesize(*src, 0, cost, budget.reserve(cost.life(), mem::Tag::synthesis)), cost);
  try {
    prover.finish(std::move(pending), "chain p0");
    FAIL() << "a proof of an unsatisfied witness was released";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("does not verify"), std::string::npos) << e.what();
  }
  EXPECT_EQ(budget.books().used, 0u);
}

TEST(PipelineEngine, SnarkjsFixturesThroughTheEngine) {
  pipeline::EngineConfig cfg;
  cfg.synthesis_workers = 2;
  pipeline::Engine<E> engine(cfg);
  for (const char* c : {"multiplier", "mixed", "chain"}) {
    SCOPED_TRACE(c);
    auto pk = std::make_shared<const zk::ProvingKey<E>>(
        io::read_zkey<E>(fixture(std::string(c) + ".zkey")));
    auto key = pipeline::Key<E>::prepare(pk);
    std::vector<io::Witness<E>> ws(3, io::read_wtns<E>(fixture(std::string(c) + ".wtns")));
    auto r1cs =
        std::make_shared<const io::R1cs<E>>(io::read_r1cs<E>(fixture(std::string(c) + ".r1cs")));
    auto src = std::make_shared<pipeline::CircomSource<E>>(pk, ws, r1cs, c);
    auto id = engine.submit({src, key, ws.size()});
    auto r = engine.wait(id);
    expect_valid(r, *key, ws);
    // snarkjs's verifying key accepts them too.
    auto pvk = zk::prepare<E>(io::read_vkey_json<E>(fixture(std::string(c) + ".vkey.json")));
    for (auto& p : r.proofs) EXPECT_TRUE(zk::verify<E>(pvk, r.publics[0], p));
  }
  EXPECT_EQ(items_held(engine), 0u);
}

TEST(PipelineEngine, ManyJobsOfDistinctWitnessesAllVerify) {
  const auto& ch = chain();
  pipeline::EngineConfig cfg;
  cfg.synthesis_workers = 2;
  cfg.gpu_workers = 2;
  cfg.g2_workers = 2;
  pipeline::Engine<E> engine(cfg);
  std::vector<std::vector<io::Witness<E>>> wss;
  std::vector<std::uint64_t> ids;
  for (int j = 0; j < 3; ++j) {
    wss.push_back(ch.witnesses(4, 100 * j + rng()() % 1000));
    ids.push_back(engine.submit({ch.source(wss.back()), ch.key, 4}));
  }
  for (int j = 0; j < 3; ++j) expect_valid(engine.wait(ids[j]), *ch.key, wss[j]);
  auto st = engine.stats();
  EXPECT_EQ(st.partitions_done, 12u);
  EXPECT_EQ(st.jobs_done, 3u);
  EXPECT_EQ(st.gpu.items, 12u);
  EXPECT_EQ(items_held(engine), 0u);
}

TEST(PipelineEngine, StageObserverSeesEveryStageOfEveryPartitionInOrder) {
  const auto& ch = chain();
  pipeline::EngineConfig cfg;
  cfg.synthesis_workers = 2;
  pipeline::Engine<E> engine(cfg);
  std::mutex mu;
  std::map<std::pair<std::uint64_t, std::size_t>, std::vector<std::string>> seen;
  engine.set_stage_observer([&](std::uint64_t job, std::size_t p, std::string_view stage, bool start) {
    std::lock_guard lk(mu);
    seen[{job, p}].push_back((start ? "+" : "-") + std::string(stage));
  });
  const auto ws = ch.witnesses(3, 7);
  const auto id = engine.submit({ch.source(ws), ch.key, 3});
  expect_valid(engine.wait(id), *ch.key, ws);
  const std::vector<std::string> want = {"+synthesis", "-synthesis", "+gpu", "-gpu",
                                         "+g2",        "-g2",        "+finalize", "-finalize"};
  std::lock_guard lk(mu);
  ASSERT_EQ(seen.size(), 3u);
  for (std::size_t p = 0; p < 3; ++p) EXPECT_EQ((seen[{id, p}]), want) << "partition " << p;
}

// Later partitions write into the pages of earlier ones (no fresh mapping, no page faults),
// the recycled pages stay booked while idle, and everything goes back at shutdown.
TEST(PipelineEngine, PartitionBuffersAreRecycledAndAllGoBackAtShutdown) {
  const auto& ch = chain();
  for (bool recycle : {true, false}) {
    pipeline::EngineConfig cfg;
    cfg.recycle_buffers = recycle;
    pipeline::Engine<E> engine(cfg);
    for (int j = 0; j < 2; ++j) {  // one job after the other: the second finds idle pages
      auto ws = ch.witnesses(2, 90 + j);
      expect_valid(engine.wait(engine.submit({ch.source(ws), ch.key, ws.size()})), *ch.key, ws);
    }
    const auto st = engine.pool_stats();
    if (recycle) {
      // The CPU stages reuse the bytes of z, a, b, c for their MSM scratch (those pages are
      // unmapped); the G2 input's pages come back to the pool and serve the next job.
      EXPECT_GT(st.reused, 0u);
      EXPECT_GT(st.kept, 0u);
      // Idle pages are in the books (tag pinned), and nothing else is held.
      EXPECT_EQ(engine.budget().books()[mem::Tag::pinned].bytes, st.idle_bytes);
      EXPECT_EQ(items_held(engine), 0u);
    } else {
      EXPECT_EQ(st.reused + st.kept, 0u);
    }
    engine.shutdown();
    EXPECT_EQ(engine.budget().books().used, 0u);
    EXPECT_EQ(engine.pool_stats().idle_blocks, 0u);
  }
}

// The buffer warm-up makes the buffers of the partitions asked for (at most what the budget has
// room for), keeps them idle and booked in the pool, and the first job's partitions then take
// their pages instead of mapping fresh ones; without a pool it makes nothing.
TEST(PipelineEngine, BufferWarmUpFillsThePoolThatTheFirstPartitionsReuse) {
  const auto& ch = chain();
  auto ws = ch.witnesses(3, 40);
  auto gpu = std::make_shared<ReleasingGpu>();
  auto g2 = pipeline::cpu_g2_stage<E>();
  const auto cost = pipeline::partition_cost<E>(ch.source(ws)->shape(), *ch.key, {}, *gpu, *g2);
  {
    pipeline::EngineConfig cfg;
    cfg.synthesis_workers = 2;
    cfg.fit_scratch(cost);
    cfg.host_budget = cfg.worker_scratch() + 2 * cost.life();  // room for two, four asked
    pipeline::Engine<E> engine(cfg, gpu, g2);
    const pipeline::JobSpec<E> spec{ch.source(ws), ch.key, ws.size()};
    EXPECT_EQ(engine.warm_buffers(spec, 4), 2u);
    const auto warm = engine.pool_stats();
    EXPECT_GT(warm.idle_blocks, 0u);
    EXPECT_EQ(warm.reused, 0u);
    EXPECT_EQ(engine.budget().books()[mem::Tag::pinned].bytes, warm.idle_bytes);
    EXPECT_LE(warm.idle_bytes, 2 * cost.life());
    EXPECT_EQ(items_held(engine), 0u);
    expect_valid(engine.wait(engine.submit(spec)), *ch.key, ws);
    // Every partition found pages: the first two the warm-up's, the third those of the first.
    EXPECT_GE(engine.pool_stats().reused, warm.idle_blocks);
    EXPECT_LE(engine.budget().books().peak, cfg.host_budget);
    engine.shutdown();
    EXPECT_EQ(engine.budget().books().used, 0u);
  }
  pipeline::EngineConfig fresh;
  fresh.recycle_buffers = false;
  pipeline::Engine<E> engine(fresh);
  EXPECT_EQ(engine.warm_buffers({ch.source(ws), ch.key, ws.size()}, 2), 0u);
  EXPECT_EQ(engine.budget().books().used, engine.config().worker_scratch());
}

// The warm-up counts the partitions whose buffers are already idle in the pool: asked again for
// as many it maps nothing, asked for more it maps only the difference.
TEST(PipelineEngine, BufferWarmUpTopsThePoolUpToThePartitionsAskedFor) {
  const auto& ch = chain();
  auto ws = ch.witnesses(3, 41);
  auto gpu = std::make_shared<ReleasingGpu>();
  auto g2 = pipeline::cpu_g2_stage<E>();
  const auto cost = pipeline::partition_cost<E>(ch.source(ws)->shape(), *ch.key, {}, *gpu, *g2);
  pipeline::EngineConfig cfg;
  cfg.synthesis_workers = 2;
  cfg.fit_scratch(cost);
  cfg.host_budget = cfg.worker_scratch() + 3 * cost.life();
  pipeline::Engine<E> engine(cfg, gpu, g2);
  const pipeline::JobSpec<E> spec{ch.source(ws), ch.key, ws.size()};
  EXPECT_EQ(engine.warm_buffers(spec, 1), 1u);
  const auto one = engine.pool_stats().idle_blocks;
  EXPECT_GT(one, 0u);
  EXPECT_EQ(engine.warm_buffers(spec, 1), 0u);
  EXPECT_EQ(engine.pool_stats().idle_blocks, one);
  EXPECT_EQ(engine.warm_buffers(spec, 3), 2u);
  EXPECT_EQ(engine.pool_stats().idle_blocks, 3 * one);
  EXPECT_EQ(engine.warm_buffers(spec, 3), 0u);
  EXPECT_EQ(engine.budget().books()[mem::Tag::pinned].bytes, engine.pool_stats().idle_bytes);
  expect_valid(engine.wait(engine.submit(spec)), *ch.key, ws);
  EXPECT_EQ(engine.pool_stats().reused, 3 * one);  // three partitions, each on warm pages
  engine.shutdown();
  EXPECT_EQ(engine.budget().books().used, 0u);
}

// Under a budget of two partitions with more synthesis workers than that, the admitting partition
// takes the pages of partitions that die while it waits (instead of each partition mapping fresh
// ones): every proof verifies, the books stay within the budget, nothing is left after shutdown.
TEST(PipelineEngine, RecycledPagesPassToTheWaitingPartitionUnderATightBudget) {
  const auto& ch = chain();
  auto probe = ch.source(ch.witnesses(1, 1));
  auto gpu = std::make_shared<ReleasingGpu>();
  auto g2 = pipeline::cpu_g2_stage<E>();
  const auto cost = pipeline::partition_cost<E>(probe->shape(), *ch.key, {}, *gpu, *g2);
  pipeline::EngineConfig cfg;
  cfg.synthesis_workers = 4;
  cfg.gpu_workers = 1;
  cfg.g2_workers = 2;
  cfg.fit_scratch(cost);
  cfg.host_budget = cfg.worker_scratch() + 2 * cost.life();
  pipeline::Engine<E> engine(cfg, gpu, g2);
  std::vector<std::vector<io::Witness<E>>> wss;
  std::vector<std::uint64_t> ids;
  for (int j = 0; j < 3; ++j) {
    wss.push_back(ch.witnesses(4, 300 + 10 * j));
    ids.push_back(engine.submit({ch.source(wss.back()), ch.key, 4}));
  }
  for (int j = 0; j < 3; ++j) expect_valid(engine.wait(ids[j]), *ch.key, wss[j]);
  const auto st = engine.pool_stats();
  // 12 partitions of 5 buffers: all but the first few partitions' buffers came from the pool.
  EXPECT_GE(st.reused, 30u) << "kept " << st.kept << ", dropped " << st.dropped;
  EXPECT_LE(engine.budget().books().peak, cfg.host_budget);
  EXPECT_EQ(items_held(engine), 0u);
  engine.shutdown();
  EXPECT_EQ(engine.budget().books().used, 0u);
}

TEST(PipelineEngine, UnsatisfiedWitnessFailsOnlyItsJobAndNamesTheConstraint) {
  const auto& ch = chain();
  pipeline::EngineConfig cfg;
  cfg.synthesis_workers = 2;
  pipeline::Engine<E> engine(cfg);
  auto bad = ch.witnesses(5, 11);
  bad[3].values[4 + 17] += Fr::one();  // x_18 wrong: constraint 17 (x_17·(x_17 + 1) = x_18 - 7)
  auto good = ch.witnesses(3, 12);
  auto id_bad = engine.submit({ch.source(bad), ch.key, bad.size()});
  auto id_good = engine.submit({ch.source(good), ch.key, good.size()});
  auto rb = engine.wait(id_bad);
  EXPECT_FALSE(rb.ok);
  EXPECT_NE(rb.error.find("partition 3"), std::string::npos) << rb.error;
  EXPECT_NE(rb.error.find("constraint 17 "), std::string::npos) << rb.error;
  EXPECT_TRUE(rb.proofs.empty());
  expect_valid(engine.wait(id_good), *ch.key, good);
  EXPECT_EQ(items_held(engine), 0u);
  EXPECT_EQ(engine.stats().jobs_failed, 1u);
}

TEST(PipelineEngine, WithoutTheR1csABadWitnessFailsAtVerification) {
  const auto& ch = chain();
  pipeline::Engine<E> engine(pipeline::EngineConfig{});
  auto bad = ch.witnesses(2, 21);
  bad[1].values[7] += Fr::one();
  auto r = engine.wait(engine.submit({ch.source(bad, false), ch.key, bad.size()}));
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("partition 1"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("does not verify"), std::string::npos) << r.error;
  EXPECT_EQ(items_held(engine), 0u);
}

TEST(PipelineEngine, CancellationFreesEverythingAndOthersGoOn) {
  const auto& ch = chain();
  pipeline::EngineConfig cfg;
  cfg.synthesis_workers = 2;
  pipeline::Engine<E> engine(cfg);
  auto ws = ch.witnesses(30, 31);
  auto slow = std::make_shared<SlowSource>(ch.source(ws), 40ms);
  auto id = engine.submit({slow, ch.key, ws.size()});
  while (slow->started.load() < 3) std::this_thread::sleep_for(2ms);
  EXPECT_GT(engine.budget().books().used, 0u);
  engine.cancel(id);
  auto r = engine.wait(id);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, "cancelled");
  EXPECT_LT(slow->started.load(), 30);
  auto books = engine.budget().books();
  EXPECT_EQ(items_held(engine), 0u);
  EXPECT_EQ(books.waiting, 0u);
  // The engine still works.
  auto ws2 = ch.witnesses(2, 32);
  expect_valid(engine.wait(engine.submit({ch.source(ws2), ch.key, 2})), *ch.key, ws2);
  EXPECT_THROW(engine.wait(id), Error);  // forgotten after wait
}

TEST(PipelineEngine, BudgetOfOnePartitionNeverDeadlocks) {
  const auto& ch = chain();
  auto probe = ch.source(ch.witnesses(1, 1));
  // What the engine's (CPU) stages report for their workers' scratch.
  const auto cost = pipeline::partition_cost<E>(
      probe->shape(), *ch.key, {}, *pipeline::cpu_gpu_stage<E>(), *pipeline::cpu_g2_stage<E>());
  pipeline::EngineConfig cfg;
  cfg.synthesis_workers = 3;
  cfg.gpu_workers = 2;
  cfg.g2_workers = 2;
  cfg.finalizers = 2;
  // The workers' scratch (held for the engine's life) and room for exactly one partition.
  cfg.fit_scratch(cost);
  cfg.host_budget = cfg.worker_scratch() + cost.life();
  pipeline::Engine<E> engine(cfg);
  std::vector<std::vector<io::Witness<E>>> wss;
  std::vector<std::uint64_t> ids;
  for (int j = 0; j < 3; ++j) {
    wss.push_back(ch.witnesses(3, 40 + 10 * j));
    ids.push_back(engine.submit({ch.source(wss.back()), ch.key, 3}));
  }
  for (int j = 0; j < 3; ++j) expect_valid(engine.wait(ids[j]), *ch.key, wss[j]);
  auto books = engine.budget().books();
  EXPECT_EQ(items_held(engine), 0u);
  EXPECT_LE(books.peak, cfg.host_budget);
  EXPECT_EQ(books[mem::Tag::scratch].peak, cfg.worker_scratch());
  // A partition that cannot fit beside the workers' scratch is refused at submission, with the
  // sizes; so is a configuration whose workers' scratch alone does not fit.
  pipeline::EngineConfig tiny = cfg;
  tiny.synth_scratch = tiny.gpu_scratch = tiny.g2_scratch = 0;  // sized at submission
  tiny.host_budget = cfg.worker_scratch() + cost.life() - 1;
  pipeline::Engine<E> small(tiny);
  try {
    small.submit({probe, ch.key, 1});
    FAIL() << "a job that can never fit was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("the whole host budget"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("stage scratch"), std::string::npos) << e.what();
  }
  EXPECT_EQ(small.budget().books().used, 0u);  // the refused job reserved nothing
  pipeline::EngineConfig no_room = cfg;
  no_room.host_budget = cfg.worker_scratch() - 1;
  EXPECT_THROW(pipeline::Engine<E>{no_room}, Error);
}

TEST(PipelineEngine, QueueBoundsAndBooksStayWithinTheModel) {
  const auto& ch = chain();
  pipeline::EngineConfig cfg;
  cfg.synthesis_workers = 3;
  cfg.gpu_workers = 2;
  cfg.g2_workers = 1;
  cfg.finalizers = 1;
  cfg.gpu_queue = 1;
  cfg.g2_queue = 1;
  cfg.final_queue = 1;
  // G2 much slower than the rest: the backlog in front of it fills and must stay bounded.
  pipeline::Engine<E> engine(cfg, pipeline::cpu_gpu_stage<E>(), std::make_shared<SlowG2>(60ms));
  auto ws = ch.witnesses(8, 50);
  auto src = ch.source(ws);
  const auto cost = engine.cost_of({src, ch.key, ws.size()});
  expect_valid(engine.wait(engine.submit({src, ch.key, ws.size()})), *ch.key, ws);
  auto st = engine.stats();
  EXPECT_LE(st.max_gpu_queue, cfg.gpu_queue);
  EXPECT_LE(st.max_g2_queue, cfg.g2_queue);
  EXPECT_LE(st.max_final_queue, cfg.final_queue);
  EXPECT_EQ(st.max_g2_queue, cfg.g2_queue);  // it did fill (G2 is the slow stage)
  // The books' peak never exceeds the model's bound for this configuration.
  auto model = mem::pipeline_model(cfg.model_config(cost, 1, ws.size()), mem::Policy::splitprove);
  auto pred = mem::predict(model);
  EXPECT_LE(engine.budget().books().peak, pred.work_bytes);
  // ...and, besides the workers' scratch, well below "every partition holds its whole output"
  // (the held policy).
  EXPECT_EQ(pred.fixed_bytes, cfg.gpu_workers * cost.g1_scratch + cfg.g2_workers * cost.g2_scratch);
  EXPECT_LT(pred.work_bytes - pred.fixed_bytes, ws.size() * cost.life());
  EXPECT_EQ(items_held(engine), 0u);
}

// The books (what reservations hold) never exceed the model's prediction for the engine's real
// configuration, with and without a budget, and the workers' scratch is held once per worker for
// the engine's life (not per partition) and is all returned at shutdown.
TEST(PipelineEngine, BooksNeverExceedTheModelAndWorkerScratchIsReturnedAtShutdown) {
  const auto& ch = chain();
  auto ws = ch.witnesses(6, 70);
  auto src = ch.source(ws);
  const auto cost = pipeline::partition_cost<E>(src->shape(), *ch.key);
  ASSERT_GT(cost.g1_scratch, 0u);
  ASSERT_GT(cost.g2_scratch, 0u);
  struct Case {
    std::uint32_t pw, gw, g2w;
    std::uint32_t budget_partitions;  // 0: no budget
  };
  for (const Case& k : {Case{1, 1, 1, 0}, Case{3, 2, 1, 0}, Case{3, 1, 2, 2}, Case{2, 2, 2, 1}}) {
    SCOPED_TRACE(
        fmt::format("pw={} gw={} g2w={} budget={}", k.pw, k.gw, k.g2w, k.budget_partitions));
    pipeline::EngineConfig cfg;
    cfg.synthesis_workers = k.pw;
    cfg.gpu_workers = k.gw;
    cfg.g2_workers = k.g2w;
    cfg.fit_scratch(cost);
    const std::uint64_t scratch = cfg.worker_scratch();
    EXPECT_EQ(scratch,
              k.gw * cost.g1_scratch + k.g2w * cost.g2_scratch + k.pw * cost.synth_scratch);
    if (k.budget_partitions) cfg.host_budget = scratch + k.budget_partitions * cost.life();
    const auto pred = mem::predict(
        mem::pipeline_model(cfg.model_config(cost, 1, ws.size()), mem::Policy::splitprove));
    EXPECT_EQ(pred.fixed_bytes, scratch);
    {
      pipeline::Engine<E> engine(cfg, pipeline::cpu_gpu_stage<E>(), std::make_shared<SlowG2>(20ms));
      // Taken when the engine starts, one reservation per worker that has scratch.
      auto books = engine.budget().books();
      EXPECT_EQ(books[mem::Tag::scratch].bytes, scratch);
      EXPECT_EQ(books[mem::Tag::scratch].live, k.gw + k.g2w + (cost.synth_scratch ? k.pw : 0));
      EXPECT_EQ(engine.worker_scratch_bytes(), scratch);
      expect_valid(engine.wait(engine.submit({src, ch.key, ws.size()})), *ch.key, ws);
      books = engine.budget().books();
      EXPECT_LE(books.peak, pred.held_bytes);
      EXPECT_LE(books.peak, pred.work_bytes);
      if (cfg.host_budget) EXPECT_LE(books.peak, cfg.host_budget);
      // Partitions never took scratch of their own: the scratch tag never grew.
      EXPECT_EQ(books[mem::Tag::scratch].peak, scratch);
      // Left: the scratch and the pool's idle recycled pages (tag pinned).
      EXPECT_EQ(books[mem::Tag::pinned].bytes, engine.pool_stats().idle_bytes);
      EXPECT_EQ(books.used - books[mem::Tag::pinned].bytes, scratch);
      engine.shutdown();
      books = engine.budget().books();
      EXPECT_EQ(books.used, 0u);
      EXPECT_EQ(books[mem::Tag::scratch].live, 0u);
      EXPECT_EQ(engine.worker_scratch_bytes(), 0u);
      EXPECT_THROW(engine.submit({src, ch.key, 1}), Error);
      engine.shutdown();  // idempotent
    }
  }
}

// An engine started without scratch sizes its workers' reservations at the first job that needs
// them (before any of its partitions runs), and does not grow them again for the same sizes.
TEST(PipelineEngine, WorkerScratchGrowsAtSubmissionWhenUnset) {
  const auto& ch = chain();
  pipeline::EngineConfig cfg;
  cfg.synthesis_workers = 2;
  cfg.g2_workers = 2;
  pipeline::Engine<E> engine(cfg);
  EXPECT_EQ(engine.budget().books()[mem::Tag::scratch].bytes, 0u);
  auto ws = ch.witnesses(3, 80);
  auto src = ch.source(ws);
  const auto cost = engine.cost_of({src, ch.key, ws.size()});
  pipeline::EngineConfig fitted = cfg;
  fitted.fit_scratch(cost);
  expect_valid(engine.wait(engine.submit({src, ch.key, ws.size()})), *ch.key, ws);
  EXPECT_EQ(engine.worker_scratch_bytes(), fitted.worker_scratch());
  expect_valid(engine.wait(engine.submit({src, ch.key, ws.size()})), *ch.key, ws);
  auto books = engine.budget().books();
  EXPECT_EQ(books[mem::Tag::scratch].bytes, fitted.worker_scratch());
  EXPECT_EQ(books[mem::Tag::scratch].peak, fitted.worker_scratch());
  EXPECT_EQ(items_held(engine), 0u);
}

// Stages that report a fixed host scratch (as a device backend does: its MSM scratch is on the
// device), running the CPU stages underneath.
class ReportingGpu final : public pipeline::GpuStage<E> {
 public:
  explicit ReportingGpu(std::uint64_t s) : s_(s) {}
  std::string name() const override { return "reporting"; }
  zk::G1Results<E> run(const pipeline::Key<E>& key, mem::Buffer<Fr> z, mem::Buffer<Fr> a,
                       mem::Buffer<Fr> b) override {
    return inner_->run(key, std::move(z), std::move(a), std::move(b));
  }
  std::uint64_t host_scratch_bytes(const pipeline::Key<E>&,
                                   const pipeline::PartitionCost&) const override {
    return s_;
  }

 private:
  std::uint64_t s_;
  std::shared_ptr<pipeline::GpuStage<E>> inner_ = pipeline::cpu_gpu_stage<E>();
};
class ReportingG2 final : public pipeline::G2Stage<E> {
 public:
  explicit ReportingG2(std::uint64_t s) : s_(s) {}
  std::string name() const override { return "reporting"; }
  E::G2Jacobian run(const pipeline::Key<E>& key, std::span<const Fr> compact) override {
    return inner_->run(key, compact);
  }
  std::uint64_t host_scratch_bytes(const pipeline::Key<E>&,
                                   const pipeline::PartitionCost&) const override {
    return s_;
  }

 private:
  std::uint64_t s_;
  std::shared_ptr<pipeline::G2Stage<E>> inner_ = pipeline::cpu_g2_stage<E>();
};

// The backend's stages report their per-worker host scratch; the engine reserves that per worker
// and the model counts it (not the CPU MSM bounds, which a device backend does not use). The CPU
// GPU stage reports, phase by phase, only what its MSMs need beyond the dead buffers whose bytes
// it keeps paying for until it returns.
TEST(PipelineEngine, WorkersReserveTheScratchTheStagesReport) {
  const auto& ch = chain();
  auto ws = ch.witnesses(3, 90);
  auto src = ch.source(ws);
  const auto bound = pipeline::partition_cost<E>(src->shape(), *ch.key);  // CPU MSM bounds
  const auto& pk = *ch.key->pk;
  const std::uint64_t one = bound.ab / 2;
  const std::uint64_t c = pk.domain_size * sizeof(Fr);  // c = a∘b, formed in the H step
  const std::uint64_t h = msm::scratch_bytes<E::G1>(pk.domain_size);
  const std::uint64_t zs = msm::scratch_bytes<E::G1>(pk.n_vars);
  const std::uint64_t want = std::max({c, h > one ? h - one : 0, zs > 2 * one ? zs - 2 * one : 0});
  const std::uint64_t cpu_report = pipeline::cpu_gpu_stage<E>()->host_scratch_bytes(*ch.key, bound);
  EXPECT_EQ(cpu_report, want);
  EXPECT_LT(cpu_report, bound.g1_scratch);
  EXPECT_EQ(pipeline::cpu_g2_stage<E>()->host_scratch_bytes(*ch.key, bound), bound.g2_scratch);

  constexpr std::uint64_t kGpu = 3 * mem::MiB, kG2 = 5 * mem::MiB;
  pipeline::EngineConfig cfg;
  cfg.synthesis_workers = 2;
  cfg.gpu_workers = 2;
  cfg.g2_workers = 1;
  pipeline::Engine<E> engine(cfg, std::make_shared<ReportingGpu>(kGpu),
                             std::make_shared<ReportingG2>(kG2));
  const auto cost = engine.cost_of({src, ch.key, ws.size()});
  EXPECT_EQ(cost.g1_scratch, kGpu);
  EXPECT_EQ(cost.g2_scratch, kG2);
  expect_valid(engine.wait(engine.submit({src, ch.key, ws.size()})), *ch.key, ws);
  const std::uint64_t scratch = 2 * kGpu + kG2 + 2 * cost.synth_scratch;
  EXPECT_EQ(engine.worker_scratch_bytes(), scratch);
  const auto pred = mem::predict(
      mem::pipeline_model(cfg.model_config(cost, 1, ws.size()), mem::Policy::splitprove));
  EXPECT_EQ(pred.fixed_bytes, scratch);
  EXPECT_LE(engine.budget().books().peak, pred.work_bytes);
  EXPECT_EQ(items_held(engine), 0u);
}

TEST(PipelineEngine, RejectsBadJobs) {
  const auto& ch = chain();
  pipeline::Engine<E> engine(pipeline::EngineConfig{});
  EXPECT_THROW(engine.submit({ch.source(ch.witnesses(1, 1)), ch.key, 0}), Error);
  // A source whose shape does not fit the key.
  auto other =
      std::make_shared<const zk::ProvingKey<E>>(io::read_zkey<E>(fixture("multiplier.zkey")));
  auto w = io::read_wtns<E>(fixture("multiplier.wtns"));
  auto src = std::make_shared<pipeline::CircomSource<E>>(other, std::vector<io::Witness<E>>{w});
  EXPECT_THROW(engine.submit({src, ch.key, 1}), Error);
  // A witness of the wrong length is refused by the source, naming it.
  auto ws = ch.witnesses(1, 1);
  ws[0].values.pop_back();
  EXPECT_THROW(ch.source(ws), Error);
  pipeline::EngineConfig zero;
  zero.g2_workers = 0;
  EXPECT_THROW(pipeline::Engine<E>{zero}, Error);
}

TEST(PipelineEngine, AFailingStageFailsOnlyThatJobAndFreesItsMemory) {
  const auto& ch = chain();
  pipeline::EngineConfig cfg;
  cfg.synthesis_workers = 2;
  for (int which = 0; which < 2; ++which) {
    SCOPED_TRACE(which == 0 ? "gpu" : "g2");
    // The 3rd stage call fails: it belongs to the first job (the second is submitted after).
    auto gpu = which == 0 ? std::shared_ptr<pipeline::GpuStage<E>>(std::make_shared<FailingGpu>(3))
                          : pipeline::cpu_gpu_stage<E>();
    auto g2 = which == 1 ? std::shared_ptr<pipeline::G2Stage<E>>(std::make_shared<FailingG2>(3))
                         : pipeline::cpu_g2_stage<E>();
    pipeline::Engine<E> engine(cfg, gpu, g2);
    auto first = ch.witnesses(4, 60);
    auto second = ch.witnesses(2, 61);
    auto id1 = engine.submit({ch.source(first), ch.key, first.size()});
    auto r1 = engine.wait(id1);
    auto id2 = engine.submit({ch.source(second), ch.key, second.size()});
    EXPECT_FALSE(r1.ok);
    EXPECT_NE(r1.error.find(which == 0 ? "GPU stage (failing): device lost" : "G2 stage (failing)"),
              std::string::npos)
        << r1.error;
    // Which partition reaches the stage third depends on how the two synthesis workers race.
    EXPECT_EQ(r1.error.rfind("partition ", 0), 0u) << r1.error;
    expect_valid(engine.wait(id2), *ch.key, second);
    EXPECT_EQ(items_held(engine), 0u);
  }
}

// The CPU stages run their MSMs one at a time (pipeline::host_msm_lock), so a G2 worker reserves
// only what its MSM needs beyond a GPU worker's scratch; other stages keep both in full.
TEST(PipelineEngine, CpuStagesShareTheirMsmScratch) {
  EXPECT_TRUE(pipeline::cpu_gpu_stage<E>()->locks_host_msms());
  EXPECT_TRUE(pipeline::cpu_g2_stage<E>()->locks_host_msms());
  constexpr std::uint64_t MiB = mem::MiB;
  pipeline::PartitionCost cost;
  cost.g1_scratch = 10 * MiB;
  cost.g2_scratch = 13 * MiB;
  cost.host_msms_exclusive = true;
  pipeline::EngineConfig cfg;
  cfg.gpu_workers = 2;
  cfg.fit_scratch(cost);
  EXPECT_EQ(cfg.gpu_worker_scratch(), 10 * MiB);
  EXPECT_EQ(cfg.g2_worker_scratch(), 3 * MiB);
  EXPECT_EQ(cfg.worker_scratch(), 23 * MiB);
  cfg.split_g2 = false;  // the GPU worker runs G2 itself: the larger of the two
  EXPECT_EQ(cfg.gpu_worker_scratch(), 13 * MiB);
  EXPECT_EQ(cfg.g2_worker_scratch(), 0u);
  pipeline::EngineConfig other;
  cost.host_msms_exclusive = false;
  other.fit_scratch(cost);
  EXPECT_EQ(other.g2_worker_scratch(), 13 * MiB);
  cost.g2_scratch = 4 * MiB;
  cost.host_msms_exclusive = true;
  pipeline::EngineConfig small;
  small.fit_scratch(cost);
  EXPECT_EQ(small.g2_worker_scratch(), 0u);

  // The CPU engine reports it, and the model and the books agree on the smaller scratch.
  const auto& ch = chain();
  auto ws = ch.witnesses(4, 90);
  auto src = ch.source(ws);
  pipeline::EngineConfig ecfg;
  pipeline::Engine<E> engine(ecfg);
  const auto c = engine.cost_of({src, ch.key, ws.size()});
  EXPECT_TRUE(c.host_msms_exclusive);
  expect_valid(engine.wait(engine.submit({src, ch.key, ws.size()})), *ch.key, ws);
  ecfg.fit_scratch(c);
  EXPECT_EQ(engine.worker_scratch_bytes(), ecfg.worker_scratch());
  EXPECT_EQ(ecfg.g2_worker_scratch(),
            c.g2_scratch > c.g1_scratch ? c.g2_scratch - c.g1_scratch : 0);
}

// The device's busy fraction: the union of the listed stages' runs, clipped to the window.
TEST(PipelineRun, BusyFractionIsTheUnionOfTheStagesRunsInTheWindow) {
  mem::Timeline tl;
  auto ev = [&](double t, const char* l) { tl.events.push_back({t, l}); };
  ev(0.0, "start:gpu:j1p0");
  ev(1.0, "start:g2:j1p0");      // overlaps the GPU stage: counted once
  ev(2.0, "end:gpu:j1p0");
  ev(3.0, "end:g2:j1p0");
  ev(3.0, "start:synthesis:j1p1");  // not a device stage
  ev(9.0, "end:synthesis:j1p1");
  ev(5.0, "start:gpu:j1p1");
  ev(12.0, "end:gpu:j1p1");      // runs past the window's end: clipped
  ev(6.0, "start:gpu:j2p0");     // never ends: not counted
  EXPECT_DOUBLE_EQ(harness::busy_fraction(tl, {"gpu", "g2"}, 0.0, 10.0), (3.0 + 5.0) / 10.0);
  EXPECT_DOUBLE_EQ(harness::busy_fraction(tl, {"gpu"}, 1.0, 10.0), (1.0 + 5.0) / 9.0);
  EXPECT_DOUBLE_EQ(harness::busy_fraction(tl, {"g2"}, 0.0, 10.0), 0.2);
  EXPECT_DOUBLE_EQ(harness::busy_fraction(tl, {"synthesis"}, 0.0, 10.0), 0.6);
  EXPECT_DOUBLE_EQ(harness::busy_fraction(tl, {"gpu"}, 5.0, 5.0), 0.0);
}

// Two engines on one budget (the daemon's engines of both curves): each books its scratch and its
// partitions there, both prove, the budget's peak stays under its capacity, and when both have
// shut down the books are empty.
TEST(PipelineEngine, TwoEnginesShareOneBudget) {
  const auto& ch = chain();
  const auto cost = pipeline::partition_cost<E>(ch.source(ch.witnesses(1, 1))->shape(), *ch.key, {},
                                                *pipeline::cpu_gpu_stage<E>(), *pipeline::cpu_g2_stage<E>());
  auto budget = std::make_shared<mem::MemoryBudget>(6 * cost.life() + (std::uint64_t(64) << 20), "host");
  pipeline::EngineConfig cfg;
  cfg.synthesis_workers = 2;
  cfg.host_budget = budget->capacity();
  cfg.shared_budget = budget;
  {
    pipeline::Engine<E> a(cfg), b(cfg);
    EXPECT_EQ(&a.budget(), budget.get());
    EXPECT_EQ(&b.budget(), budget.get());
    const auto wa = ch.witnesses(4, 11), wb = ch.witnesses(4, 12);
    const auto ja = a.submit({ch.source(wa), ch.key, 4});
    const auto jb = b.submit({ch.source(wb), ch.key, 4});
    expect_valid(a.wait(ja), *ch.key, wa);
    expect_valid(b.wait(jb), *ch.key, wb);
    a.shutdown();
    EXPECT_GT(budget->books().peak, 0u);
    b.shutdown();
  }
  const auto books = budget->books();
  EXPECT_EQ(books.used, 0u);
  EXPECT_LE(books.peak, budget->capacity());
}

// `bench pipeline` / `demo` sizes are bounded by the fields' domains and by the memory the
// development key needs, not by a fixed range; the refusal gives the numbers.
TEST(BenchCircuits, SizesAreBoundedByMemoryNotByAFixedRange) {
  using B = ec::Bn254;
  constexpr std::uint64_t GiB = mem::GiB;
  EXPECT_NO_THROW(harness::check_bench_size<E>(27, std::uint64_t(1) << 40));
  EXPECT_NO_THROW(harness::check_bench_size<B>(28, std::uint64_t(1) << 40));
  EXPECT_THROW(harness::check_bench_size<B>(29, std::uint64_t(1) << 40), Error);  // 2-adicity 28
  EXPECT_THROW(harness::check_bench_size<E>(3, std::uint64_t(1) << 40), Error);
  try {
    harness::check_bench_size<E>(27, 16 * GiB);
    ADD_FAILURE() << "a 2^27 key was let through with 16 GiB";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("2^27"), std::string::npos) << m;
    EXPECT_NE(m.find("16.0 GiB available"), std::string::npos) << m;
  }
  // At 2^24 over BLS12-381 the process held 14.5 GiB for the key (bench/RESULTS.md).
  EXPECT_GT(harness::dev_key_bytes_bound<E>(24), 12 * GiB);
  EXPECT_LT(harness::dev_key_bytes_bound<E>(24), 16 * GiB);
  EXPECT_EQ(harness::dev_key_bytes_bound<E>(25), 2 * harness::dev_key_bytes_bound<E>(24));
}

// A benchmark key whose points the GPU makes (--key-on device): the host holds their scalars only,
// the G2 MSM's wires are those of a host key of the same circuit, the bound of what the host
// needs is a fraction of a host key's, and the host stages refuse such a key by name (the job
// fails; nothing is proved with points that are not there).
TEST(BenchCircuits, KeyMadeOnTheDeviceHoldsScalarsAndTheHostStagesRefuseIt) {
  constexpr std::uint64_t GiB = mem::GiB;
  const auto dev = harness::make_bench_circuit<E>("porep", 10, 1, harness::KeyPoints::device);
  const auto host = harness::make_bench_circuit<E>("porep", 10, 1, harness::KeyPoints::host);
  ASSERT_TRUE(dev.key->points_on_device());
  EXPECT_FALSE(host.key->points_on_device());
  const auto& pk = *dev.key->pk;
  EXPECT_TRUE(pk.a.empty() && pk.b1.empty() && pk.b2.empty() && pk.c.empty() && pk.h.empty());
  EXPECT_TRUE(pk.coeffs.empty());  // the native source does not evaluate A·z by the key
  EXPECT_EQ(pk.n_vars, host.key->pk->n_vars);
  EXPECT_EQ(pk.domain_size, host.key->pk->domain_size);
  EXPECT_EQ(dev.key->g2.wires, host.key->g2.wires);
  EXPECT_TRUE(dev.key->g2.bases.empty());
  const auto g2s = dev.key->g2_scalars();
  ASSERT_EQ(g2s.size(), dev.key->g2.size());
  for (const auto& s : g2s) EXPECT_FALSE(s.is_zero());
  EXPECT_EQ(dev.key->points->a.size(), pk.n_vars);
  EXPECT_EQ(dev.key->points->h.size(), pk.domain_size);
  // What the host needs while it is made: 7 scalars a variable against 4 G1 and 1 G2 point.
  EXPECT_LT(harness::dev_key_bytes_bound<E>(27, harness::KeyPoints::device),
            harness::dev_key_bytes_bound<E>(27) / 2);
  EXPECT_NO_THROW(harness::check_bench_size<E>(27, 64 * GiB, harness::KeyPoints::device));
  EXPECT_THROW(harness::check_bench_size<E>(27, 64 * GiB, harness::KeyPoints::host), Error);
  splitprove::testing::expect_host_stages_refuse<E>({dev.source(0), dev.key, 1});
}

// The reference design's policy (EngineConfig::policy held_until_finalize, for comparisons): the
// synthesis output stays booked until each proof is finalized, so the books peak is higher than
// the design's for the same jobs; the proofs still verify and everything goes back at the end.
TEST(EnginePolicy, HeldUntilFinalizeKeepsTheSynthesisOutputBookedUntilTheProofIsDone) {
  auto rec = circuit::record_porep<Fr>(splitprove::testing::small_porep_params(5));
  auto cs = std::make_shared<const circuit::ConstraintSystem<Fr>>(std::move(rec.cs));
  auto key = pipeline::Key<E>::prepare(
      std::make_shared<const zk::ProvingKey<E>>(zk::dev_setup<E>(circuit::to_r1cs<E>(*cs))));
  std::uint64_t peak[2] = {0, 0};
  for (int held = 0; held < 2; ++held) {
    SCOPED_TRACE(held ? "held" : "splitprove");
    pipeline::EngineConfig cfg;
    cfg.synthesis_workers = 2;
    if (held) {
      cfg.policy = mem::Policy::held_until_finalize;
      cfg.g2_queue = cfg.final_queue = pipeline::EngineConfig::kMaxQueueBound;
    }
    // A slow G2 stage: pending proofs wait for it, holding what the policy keeps.
    struct SlowG2 final : pipeline::G2StageAround<E> {
      SlowG2() : pipeline::G2StageAround<E>(pipeline::cpu_g2_stage<E>()) {}
      E::G2Jacobian run(const pipeline::Key<E>& k, std::span<const Fr> c) override {
        std::this_thread::sleep_for(std::chrono::milliseconds(60));
        return pipeline::G2StageAround<E>::run(k, c);
      }
    };
    pipeline::Engine<E> engine(cfg, pipeline::cpu_gpu_stage<E>(), std::make_shared<SlowG2>());
    const auto id = engine.submit({circuit::porep_source<Fr>(splitprove::testing::small_porep_params(6), cs), key, 6});
    const auto r = engine.wait(id);
    splitprove::testing::expect_valid_proofs<E>(r, *key, 6);
    peak[held] = engine.budget().books().peak;
    engine.shutdown();
    EXPECT_EQ(engine.budget().books().used, 0u);
  }
  EXPECT_GT(peak[1], peak[0]);
}

// The pipeline on the CUDA backend, typed over both engines (BLS12-381 and BN254): the CUDA GPU
// stage gives the CPU stage's G1 results for the same partition (native PoRep circuit and the
// curve's circom fixtures), proofs through the engine on the CUDA stages verify with the CPU
// verifier (and snarkjs's verifying key), a wrong witness is rejected, the proving key is uploaded
// once and kept for every partition and job (and evicted on request), the streamed fallback gives
// the same results, backend selection picks CUDA when a GPU exists, keys with the monomial H basis
// prove on the CUDA stages too, and keys of both curves live on one GPU side by side.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "harness/bench_circuits.hpp"
#include "cuda/stage.hpp"
#include "gpu.hpp"
#include "io/json.hpp"
#include "io/r1cs.hpp"
#include "io/wtns.hpp"
#include "io/zkey.hpp"
#include "pipeline/backend.hpp"
#include "pipeline/circom_source.hpp"
#include "pipeline/engine.hpp"
#include "splitprove/error.hpp"
#include "zk/groth16.hpp"
#include "../pipeline_test_util.hpp"

using namespace splitprove;
using splitprove::testing::items_held;

namespace {

// The curve's snarkjs fixtures: BLS12-381 in tests/fixtures, BN254 ("bn128") in tests/fixtures/bn128.
template <class E>
std::string fixture(const std::string& name) {
  const char* d = std::getenv("SPLITPROVE_SOURCE_DIR");
  const std::string dir = E::kId == ec::CurveId::kBn254 ? "bn128/" : "";
  return std::string(d ? d : SPLITPROVE_SOURCE_DIR) + "/tests/fixtures/" + dir + name;
}

// One shared GPU per test process (small budget: the tests' keys are tiny), for both curves.
std::shared_ptr<cuda::Gpu> gpu() {
  static std::shared_ptr<cuda::Gpu> g = [] {
    cuda::GpuOptions o;
    o.budget_bytes = std::uint64_t(8) << 30;
    return cuda::open_gpu(o);
  }();
  return g;
}

// A partition's inputs, synthesized once, copied for each stage that consumes them.
template <class E>
struct Inputs {
  std::vector<typename E::Fr> z, a, b;
};
template <class E>
Inputs<E> synthesize(const circuit::PartitionSource<typename E::Fr>& src, std::size_t index) {
  const auto sh = src.shape();
  Inputs<E> in;
  in.z.resize(sh.n_vars);
  in.a.resize(sh.domain_size);
  in.b.resize(sh.domain_size);
  src.synthesize(index, in.z, in.a, in.b, {});
  return in;
}
template <class Fr>
mem::Buffer<Fr> buf(const std::vector<Fr>& v) {
  auto b = mem::Buffer<Fr>::unbudgeted(v.size());
  std::copy(v.begin(), v.end(), b.span().begin());
  return b;
}
template <class E>
zk::G1Results<E> run_stage(pipeline::GpuStage<E>& st, const pipeline::Key<E>& key,
                           const Inputs<E>& in) {
  return st.run(key, buf(in.z), buf(in.a), buf(in.b));
}
template <class E>
void expect_same(const zk::G1Results<E>& x, const zk::G1Results<E>& y) {
  EXPECT_TRUE(x.a == y.a) << "A";
  EXPECT_TRUE(x.b1 == y.b1) << "B1";
  EXPECT_TRUE(x.l == y.l) << "L";
  EXPECT_TRUE(x.h == y.h) << "H";
}
// Compares both stages on partition `index` of `src`, and the G2 stages on its compact input.
template <class E>
void compare_stages(const pipeline::Key<E>& key,
                    const circuit::PartitionSource<typename E::Fr>& src, std::size_t index,
                    pipeline::GpuStage<E>& cuda_stage) {
  const Inputs<E> in = synthesize<E>(src, index);
  auto cpu = pipeline::cpu_gpu_stage<E>();
  expect_same<E>(run_stage<E>(cuda_stage, key, in), run_stage<E>(*cpu, key, in));
  std::vector<typename E::Fr> compact(key.g2.size());
  zk::compact_g2_scalars<E>(key.g2, in.z, compact);
  auto g2c = cuda::g2_stage<E>(gpu());
  auto g2h = pipeline::cpu_g2_stage<E>();
  EXPECT_TRUE(g2c->run(key, compact) == g2h->run(key, compact)) << "B2";
}

template <class E>
void expect_verified(const pipeline::JobResult<E>& r, const pipeline::Key<E>& key,
                     std::size_t n) {
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.proofs.size(), n);
  for (std::size_t i = 0; i < n; ++i) {
    EXPECT_TRUE(zk::verify<E>(key.pvk, r.publics[i], r.proofs[i])) << i;
    // Bound to its statement: a proof does not verify for altered public inputs.
    if (!r.publics[i].empty()) {
      auto other = r.publics[i];
      other[0] += E::Fr::one();
      EXPECT_FALSE(zk::verify<E>(key.pvk, other, r.proofs[i])) << i;
    }
  }
}

template <class E>
const harness::BenchCircuit<E>& porep() {
  static const auto bc = harness::make_bench_circuit<E>("porep", 11, 3);
  return bc;
}

template <class E>
std::shared_ptr<const zk::ProvingKey<E>> read_key(const std::string& c) {
  return std::make_shared<const zk::ProvingKey<E>>(io::read_zkey<E>(fixture<E>(c + ".zkey")));
}

template <class E>
class CudaPipeline : public ::testing::Test {};

struct EngineNames {
  template <class E>
  static std::string GetName(int) {
    return std::string(E::kSnarkjsName);
  }
};

using Engines = ::testing::Types<ec::Bls12_381, ec::Bn254>;
TYPED_TEST_SUITE(CudaPipeline, Engines, EngineNames);

}  // namespace

// A development key whose points the GPU makes from their scalars (--key-on device): the CUDA
// stages prove with it and every proof verifies against its verifying key (made on the host from
// the same toxic waste), a tampered proof does not; the host stages refuse it by name.
TYPED_TEST(CudaPipeline, KeyMadeOnTheDeviceProvesAndVerifies) {
  using E = TypeParam;
  SPLITPROVE_REQUIRE_GPU();
  const auto bc = harness::make_bench_circuit<E>("porep", 11, 3, harness::KeyPoints::device);
  ASSERT_TRUE(bc.key->points_on_device());
  EXPECT_TRUE(bc.key->pk->a.empty() && bc.key->pk->h.empty() && bc.key->g2.bases.empty());
  EXPECT_GT(bc.key->g2.size(), 0u);
  const auto before = cuda::report(*gpu()).key_uploads;
  {
    pipeline::EngineConfig cfg;
    cfg.synthesis_workers = 2;
    pipeline::Engine<E> engine(cfg, cuda::gpu_stage<E>(gpu()), cuda::g2_stage<E>(gpu()));
    auto id = engine.submit({bc.source(0), bc.key, 3});
    const auto r = engine.wait(id);
    expect_verified<E>(r, *bc.key, 3);
    if (r.ok && !r.proofs.empty()) {
      auto bad = r.proofs[0];
      bad.c = (bad.c.to_jacobian() + E::G1Affine::generator()).to_affine();
      EXPECT_FALSE(zk::verify<E>(bc.key->pvk, r.publics[0], bad));
    }
    engine.shutdown();
  }
  EXPECT_EQ(cuda::report(*gpu()).key_uploads, before + 1);
  cuda::evict<E>(*gpu(), bc.key->pk.get());
  splitprove::testing::expect_host_stages_refuse<E>({bc.source(1), bc.key, 1});
}

TYPED_TEST(CudaPipeline, PorepStageEqualsTheCpuStage) {
  using E = TypeParam;
  SPLITPROVE_REQUIRE_GPU();
  const auto& bc = porep<E>();
  auto st = cuda::gpu_stage<E>(gpu());
  auto src = bc.source(0);
  for (std::size_t p : {0u, 2u}) {
    SCOPED_TRACE(p);
    compare_stages<E>(*bc.key, *src, p, *st);
  }
}

TYPED_TEST(CudaPipeline, CircomFixturesStageEqualsTheCpuStage) {
  using E = TypeParam;
  SPLITPROVE_REQUIRE_GPU();
  auto st = cuda::gpu_stage<E>(gpu());
  for (const char* c : {"multiplier", "mixed", "chain"}) {
    SCOPED_TRACE(c);
    auto pk = read_key<E>(c);
    auto key = pipeline::Key<E>::prepare(pk);
    std::vector<io::Witness<E>> ws(1, io::read_wtns<E>(fixture<E>(std::string(c) + ".wtns")));
    pipeline::CircomSource<E> src(pk, ws, nullptr, c);
    compare_stages<E>(*key, src, 0, *st);
  }
}

TYPED_TEST(CudaPipeline, EngineProofsOnTheCudaStagesVerify) {
  using E = TypeParam;
  SPLITPROVE_REQUIRE_GPU();
  const auto& bc = porep<E>();
  for (bool g2_gpu : {true, false}) {
    SCOPED_TRACE(g2_gpu ? "G2 on the GPU" : "G2 on the CPU");
    pipeline::EngineConfig cfg;
    cfg.synthesis_workers = 2;
    cfg.gpu_workers = 2;
    pipeline::Engine<E> engine(
        cfg, cuda::gpu_stage<E>(gpu()),
        g2_gpu ? cuda::g2_stage<E>(gpu()) : pipeline::cpu_g2_stage<E>());
    auto id0 = engine.submit({bc.source(0), bc.key, 3});
    auto id1 = engine.submit({bc.source(1), bc.key, 3});
    expect_verified<E>(engine.wait(id0), *bc.key, 3);
    expect_verified<E>(engine.wait(id1), *bc.key, 3);
    // Only the workers' scratch and the pool's idle (pinned) pages are still held; shutdown gives
    // them back.
    EXPECT_EQ(items_held(engine), 0u);
    EXPECT_GT(engine.pool_stats().reused, 0u);
    engine.shutdown();
    EXPECT_EQ(engine.budget().books().used, 0u);
  }
  // The key went up once for all partitions and jobs; evict gives its device bytes back.
  auto rep = cuda::report(*gpu());
  EXPECT_GE(rep.resident_keys, 1u);
  EXPECT_GT(rep.key_bytes, 0u);
  EXPECT_GE(rep.srs_bytes, rep.key_bytes);
  cuda::evict<E>(*gpu(), bc.key->pk.get());
  EXPECT_EQ(cuda::report(*gpu()).resident_keys, rep.resident_keys - 1);
  EXPECT_LT(cuda::report(*gpu()).srs_bytes, rep.srs_bytes);
  EXPECT_LT(cuda::report(*gpu()).key_bytes, rep.key_bytes);
}

// A key with the monomial H basis (bellman-style, τ^i·Z(τ)/δ): the CUDA stage runs
// FrNttOf::h_coefficients for it, equals the CPU stage (poly::h_coefficients), and the engine's
// proofs verify. The same points read as an odd-coset key give another H (the flag is obeyed).
TYPED_TEST(CudaPipeline, MonomialHBasisKeyProvesOnTheCudaStages) {
  using E = TypeParam;
  SPLITPROVE_REQUIRE_GPU();
  const std::uint32_t steps = (1u << 11) - 6;  // domain 2^11
  auto r1cs = harness::detail::chain_r1cs<E>(steps);
  auto pk =
      std::make_shared<const zk::ProvingKey<E>>(zk::dev_setup<E>(r1cs, {}, zk::HBasis::monomial));
  ASSERT_EQ(pk->domain_size, 1u << 11);
  auto key = pipeline::Key<E>::prepare(pk);
  auto source = [&](std::uint32_t job) {
    std::vector<io::Witness<E>> ws;
    for (std::uint32_t p = 0; p < 2; ++p)
      ws.push_back(harness::detail::chain_witness<E>(steps, 1000 * job + p + 2, job));
    return std::make_shared<const pipeline::CircomSource<E>>(pk, std::move(ws), nullptr, "chain");
  };
  auto st = cuda::gpu_stage<E>(gpu());
  compare_stages<E>(*key, *source(0), 1, *st);
  {
    auto odd = std::make_shared<zk::ProvingKey<E>>(*pk);
    odd->h_basis = zk::HBasis::odd_coset;
    auto okey = pipeline::Key<E>::prepare(odd);
    const Inputs<E> in = synthesize<E>(*source(0), 1);
    EXPECT_FALSE(run_stage<E>(*st, *okey, in).h == run_stage<E>(*st, *key, in).h);
    cuda::evict<E>(*gpu(), odd.get());
  }
  pipeline::Engine<E> engine(pipeline::EngineConfig{}, cuda::gpu_stage<E>(gpu()),
                             cuda::g2_stage<E>(gpu()));
  expect_verified<E>(engine.wait(engine.submit({source(0), key, 2})), *key, 2);
  engine.shutdown();
  cuda::evict<E>(*gpu(), pk.get());
}

TYPED_TEST(CudaPipeline, KeyIsUploadedOncePerGpu) {
  using E = TypeParam;
  SPLITPROVE_REQUIRE_GPU();
  const auto& bc = porep<E>();
  cuda::evict(*gpu());
  const auto before = cuda::report(*gpu()).key_uploads;
  pipeline::Engine<E> engine(pipeline::EngineConfig{}, cuda::gpu_stage<E>(gpu()),
                             cuda::g2_stage<E>(gpu()));
  for (std::uint32_t j = 0; j < 2; ++j)
    expect_verified<E>(engine.wait(engine.submit({bc.source(j), bc.key, 2})), *bc.key, 2);
  EXPECT_EQ(cuda::report(*gpu()).key_uploads, before + 1);
  EXPECT_GT(cuda::report(*gpu()).key_bytes, 0u);
  cuda::evict(*gpu());
  EXPECT_EQ(cuda::report(*gpu()).key_bytes, 0u);
  EXPECT_EQ(cuda::report(*gpu()).srs_bytes, 0u);
  EXPECT_EQ(cuda::report(*gpu()).resident_keys, 0u);
}

TYPED_TEST(CudaPipeline, StreamedKeyGivesTheSameResults) {
  using E = TypeParam;
  SPLITPROVE_REQUIRE_GPU();
  cuda::GpuOptions o;
  o.budget_bytes = std::uint64_t(4) << 30;
  o.never_resident = true;
  auto g = cuda::open_gpu(o);
  const auto& bc = porep<E>();
  auto src = bc.source(2);
  compare_stages<E>(*bc.key, *src, 1, *cuda::gpu_stage<E>(g));
  EXPECT_EQ(cuda::report(*g).streamed_keys, 1u);
  EXPECT_EQ(cuda::report(*g).resident_keys, 0u);
  EXPECT_EQ(cuda::report(*g).key_bytes, 0u);  // no point stayed on the device
}

// GpuOptions::serial_compute: the GPU stage's kernels and the G2 MSMs take turns on the device
// (two GPU and two G2 workers compete for it); every proof verifies and the stage reports its
// wait for the device as the "turn" phase.
TYPED_TEST(CudaPipeline, SerialComputeTakesTurnsAndProves) {
  using E = TypeParam;
  SPLITPROVE_REQUIRE_GPU();
  cuda::GpuOptions o;
  o.budget_bytes = std::uint64_t(4) << 30;
  o.workers = 2;
  o.serial_compute = true;
  auto g = cuda::open_gpu(o);
  const auto& bc = porep<E>();
  auto stage = cuda::gpu_stage<E>(g);
  pipeline::EngineConfig cfg;
  cfg.synthesis_workers = 2;
  cfg.gpu_workers = 2;
  cfg.g2_workers = 2;
  pipeline::Engine<E> engine(cfg, stage, cuda::g2_stage<E>(g));
  expect_verified<E>(engine.wait(engine.submit({bc.source(3), bc.key, 6})), *bc.key, 6);
  EXPECT_NE(stage->phase_report().find("turn"), std::string::npos) << stage->phase_report();
}

TYPED_TEST(CudaPipeline, SnarkjsFixturesThroughTheEngineOnTheGpu) {
  using E = TypeParam;
  SPLITPROVE_REQUIRE_GPU();
  pipeline::Engine<E> engine(pipeline::EngineConfig{}, cuda::gpu_stage<E>(gpu()),
                             cuda::g2_stage<E>(gpu()));
  for (const char* c : {"multiplier", "mixed", "chain"}) {
    SCOPED_TRACE(c);
    auto pk = read_key<E>(c);
    auto key = pipeline::Key<E>::prepare(pk);
    std::vector<io::Witness<E>> ws(2, io::read_wtns<E>(fixture<E>(std::string(c) + ".wtns")));
    auto r1cs = std::make_shared<const io::R1cs<E>>(
        io::read_r1cs<E>(fixture<E>(std::string(c) + ".r1cs")));
    auto src = std::make_shared<pipeline::CircomSource<E>>(pk, ws, r1cs, c);
    auto r = engine.wait(engine.submit({src, key, ws.size()}));
    expect_verified<E>(r, *key, ws.size());
    auto pvk = zk::prepare<E>(io::read_vkey_json<E>(fixture<E>(std::string(c) + ".vkey.json")));
    for (auto& p : r.proofs) EXPECT_TRUE(zk::verify<E>(pvk, r.publics[0], p));
  }
}

TYPED_TEST(CudaPipeline, WrongWitnessIsRejected) {
  using E = TypeParam;
  SPLITPROVE_REQUIRE_GPU();
  pipeline::Engine<E> engine(pipeline::EngineConfig{}, cuda::gpu_stage<E>(gpu()),
                             cuda::g2_stage<E>(gpu()));
  auto pk = read_key<E>("chain");
  auto key = pipeline::Key<E>::prepare(pk);
  auto w = io::read_wtns<E>(fixture<E>("chain.wtns"));
  std::vector<io::Witness<E>> ws(2, w);
  ws[1].values.back() += E::Fr::one();  // a private wire off: no r1cs given, so only the proof tells
  auto src = std::make_shared<pipeline::CircomSource<E>>(pk, ws, nullptr, "chain");
  auto r = engine.wait(engine.submit({src, key, ws.size()}));
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("partition 1"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("does not verify"), std::string::npos) << r.error;
  EXPECT_EQ(items_held(engine), 0u);
  engine.shutdown();
  EXPECT_EQ(engine.budget().books().used, 0u);
}

TYPED_TEST(CudaPipeline, BackendSelection) {
  using E = TypeParam;
  cuda::install_pipeline_backend();
  pipeline::BackendRequest cpu_req;
  cpu_req.backend = "cpu";
  EXPECT_EQ(pipeline::make_backend<E>(cpu_req).name, "cpu");
  pipeline::BackendRequest bad;
  bad.g2_on = "fpga";
  EXPECT_THROW(pipeline::make_backend<E>(bad), Error);
  SPLITPROVE_REQUIRE_GPU();
  auto b = pipeline::make_backend<E>({});
  EXPECT_EQ(b.name, "cuda");
  EXPECT_EQ(b.gpu().name(), "cuda");
  EXPECT_EQ(b.g2().name(), "cuda");
  EXPECT_EQ(b.device_sources.size(), 2 * b.stages.size());
  pipeline::BackendRequest g2cpu;
  g2cpu.g2_on = "cpu";
  EXPECT_EQ(pipeline::make_backend<E>(g2cpu).g2().name(), "cpu");
  pipeline::BackendRequest missing;
  missing.backend = "cuda";
  missing.devices = {63};
  EXPECT_THROW(pipeline::make_backend<E>(missing), Error);
}

// One GPU as two logical devices: each has its own device budget (half of what is free), pool and
// resident key; a job's partitions spread over both; the proofs verify; each budget stays within
// its share and holds only the resident key afterwards. Then one of them faults (injected): its
// partitions are proved on the other and the job still succeeds.
TYPED_TEST(CudaPipeline, TwoLogicalDevicesOnOneGpu) {
  using E = TypeParam;
  SPLITPROVE_REQUIRE_GPU();
  cuda::install_pipeline_backend();
  const auto& bc = porep<E>();
  pipeline::BackendRequest req;
  req.backend = "cuda";
  req.devices = {0};
  req.logical_devices = 2;
  auto b = pipeline::make_backend<E>(req);
  ASSERT_EQ(b.stages.size(), 2u);
  EXPECT_EQ(b.stages[0].state->name(), "gpu0.0");
  EXPECT_EQ(b.stages[1].state->name(), "gpu0.1");
  {
    pipeline::EngineConfig cfg;
    cfg.synthesis_workers = 2;
    pipeline::Engine<E> engine(cfg, b.stages);
    expect_verified<E>(engine.wait(engine.submit({bc.source(0), bc.key, 8})), *bc.key, 8);
    const auto st = engine.stats();
    ASSERT_EQ(st.devices.size(), 2u);
    for (const auto& d : st.devices) EXPECT_GT(d.gpu_items, 0u) << d.name;
    engine.shutdown();
    EXPECT_EQ(engine.budget().books().used, 0u);
  }
  const auto devs = b.devices();
  ASSERT_EQ(devs.size(), 2u);
  for (const auto& d : devs) {
    EXPECT_TRUE(d.healthy) << d.logical;
    EXPECT_LE(d.budget_peak, d.budget_capacity) << d.logical;
    EXPECT_GT(d.key_bytes, 0u) << d.logical;  // each holds its own resident copy
  }
  EXPECT_LE(devs[0].budget_capacity + devs[1].budget_capacity, devs[0].free_bytes + devs[0].budget_used +
                                                                    devs[1].budget_used + (std::uint64_t(4) << 30));
  auto stages = b.stages;
  pipeline::FaultInjection f{"gpu0.1", 2};
  for (auto& s : stages) s = pipeline::inject_faults<E>(std::move(s), f);
  pipeline::Engine<E> engine(pipeline::EngineConfig{}, stages);
  expect_verified<E>(engine.wait(engine.submit({bc.source(1), bc.key, 6})), *bc.key, 6);
  const auto st = engine.stats();
  EXPECT_FALSE(st.devices[1].healthy);
  // The fault stays (every later run on gpu0.1 throws): a GPU stage and a G2 stage already
  // running there when it broke fault too, and each of their partitions is proved again, as is
  // each partition a gpu0.1 worker took up after the device went out of service (rerouted).
  EXPECT_GE(st.devices[1].faults, 1u);
  EXPECT_LE(st.devices[1].faults, 2u);
  EXPECT_EQ(st.partitions_retried, st.devices[1].faults + st.partitions_rerouted);
  engine.shutdown();
  EXPECT_EQ(engine.budget().books().used, 0u);
}

TYPED_TEST(CudaPipeline, NoDeviceMeansTheCpuStages) {
  using E = TypeParam;
  if (cuda::testing::no_gpu_reason().empty()) GTEST_SKIP() << "NoDevice test: a GPU is present";
  cuda::install_pipeline_backend();
  auto b = pipeline::make_backend<E>({});
  EXPECT_EQ(b.name, "cpu");
  EXPECT_NE(b.detail.find("no GPU"), std::string::npos) << b.detail;
  pipeline::BackendRequest want;
  want.backend = "cuda";
  EXPECT_THROW(pipeline::make_backend<E>(want), Error);
}

// Keys of both curves resident on one GPU at once: each curve's backend, made through the
// registry, shares the one device; proofs of both verify; evicting one curve's key leaves the
// other's points in place.
TEST(CudaPipelineCurves, BothCurvesShareOneGpu) {
  SPLITPROVE_REQUIRE_GPU();
  using A = ec::Bls12_381;
  using B = ec::Bn254;
  auto g = gpu();
  cuda::evict(*g);
  const auto& ba = porep<A>();
  const auto& bb = porep<B>();
  pipeline::Engine<A> ea(pipeline::EngineConfig{}, cuda::gpu_stage<A>(g), cuda::g2_stage<A>(g));
  pipeline::Engine<B> eb(pipeline::EngineConfig{}, cuda::gpu_stage<B>(g), cuda::g2_stage<B>(g));
  auto ja = ea.submit({ba.source(0), ba.key, 2});
  auto jb = eb.submit({bb.source(0), bb.key, 2});
  expect_verified<A>(ea.wait(ja), *ba.key, 2);
  expect_verified<B>(eb.wait(jb), *bb.key, 2);
  const auto both = cuda::report(*g);
  EXPECT_EQ(both.resident_keys, 2u);
  cuda::evict<B>(*g, bb.key->pk.get());
  const auto one = cuda::report(*g);
  EXPECT_EQ(one.resident_keys, 1u);
  EXPECT_GT(one.key_bytes, 0u);
  EXPECT_LT(one.key_bytes, both.key_bytes);
  // The BLS12-381 key is still resident: proving again uploads nothing.
  expect_verified<A>(ea.wait(ea.submit({ba.source(1), ba.key, 1})), *ba.key, 1);
  EXPECT_EQ(cuda::report(*g).key_uploads, one.key_uploads);
  ea.shutdown();
  eb.shutdown();
  cuda::evict(*g);
  EXPECT_EQ(cuda::report(*g).resident_keys, 0u);
}

// The pipeline on the CUDA backend: the CUDA GPU stage gives the CPU stage's G1 results for the
// same partition (native PoRep circuit and circom fixtures), proofs through the engine on the CUDA
// stages verify with the CPU verifier (and snarkjs's verifying key), a wrong witness is rejected,
// the proving key is uploaded once and kept for every partition and job (and evicted on request),
// the streamed fallback gives the same results, backend selection picks CUDA when a GPU exists,
// and keys with the monomial H basis prove on the CUDA stages too.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "cli/bench_circuits.hpp"
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

using namespace splitprove;
using E = zk::Bls12_381;
using Fr = E::Fr;

namespace {

std::string fixture(const std::string& name) {
  const char* d = std::getenv("SPLITPROVE_SOURCE_DIR");
  return std::string(d ? d : SPLITPROVE_SOURCE_DIR) + "/tests/fixtures/" + name;
}

// One shared GPU per test process (small budget: the tests' keys are tiny).
std::shared_ptr<cuda::Gpu> gpu() {
  static std::shared_ptr<cuda::Gpu> g = [] {
    cuda::GpuOptions o;
    o.budget_bytes = std::uint64_t(8) << 30;
    return cuda::open_gpu(o);
  }();
  return g;
}

// A partition's inputs, synthesized once, copied for each stage that consumes them.
struct Inputs {
  std::vector<Fr> z, a, b, c;
};
Inputs synthesize(const circuit::PartitionSource<Fr>& src, std::size_t index) {
  const auto sh = src.shape();
  Inputs in;
  in.z.resize(sh.n_vars);
  in.a.resize(sh.domain_size);
  in.b.resize(sh.domain_size);
  in.c.resize(sh.domain_size);
  src.synthesize(index, in.z, in.a, in.b, in.c, {});
  return in;
}
mem::Buffer<Fr> buf(const std::vector<Fr>& v) {
  auto b = mem::Buffer<Fr>::unbudgeted(v.size());
  std::copy(v.begin(), v.end(), b.span().begin());
  return b;
}
zk::G1Results<E> run_stage(pipeline::GpuStage<E>& st, const pipeline::Key<E>& key,
                           const Inputs& in) {
  return st.run(key, buf(in.z), buf(in.a), buf(in.b), buf(in.c));
}
void expect_same(const zk::G1Results<E>& x, const zk::G1Results<E>& y) {
  EXPECT_TRUE(x.a == y.a) << "A";
  EXPECT_TRUE(x.b1 == y.b1) << "B1";
  EXPECT_TRUE(x.l == y.l) << "L";
  EXPECT_TRUE(x.h == y.h) << "H";
}
// Compares both stages on partition `index` of `src`, and the G2 stages on its compact input.
void compare_stages(const pipeline::Key<E>& key, const circuit::PartitionSource<Fr>& src,
                    std::size_t index, pipeline::GpuStage<E>& cuda_stage) {
  const Inputs in = synthesize(src, index);
  auto cpu = pipeline::cpu_gpu_stage<E>();
  expect_same(run_stage(cuda_stage, key, in), run_stage(*cpu, key, in));
  std::vector<Fr> compact(key.g2.size());
  zk::compact_g2_scalars<E>(key.g2, in.z, compact);
  auto g2c = cuda::g2_stage(gpu());
  auto g2h = pipeline::cpu_g2_stage<E>();
  EXPECT_TRUE(g2c->run(key, compact) == g2h->run(key, compact)) << "B2";
}

void expect_verified(const pipeline::JobResult<E>& r, const pipeline::Key<E>& key,
                     std::size_t n) {
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.proofs.size(), n);
  for (std::size_t i = 0; i < n; ++i) {
    EXPECT_TRUE(zk::verify<E>(key.pvk, r.publics[i], r.proofs[i])) << i;
    // Bound to its statement: a proof does not verify for altered public inputs.
    if (!r.publics[i].empty()) {
      auto other = r.publics[i];
      other[0] += Fr::one();
      EXPECT_FALSE(zk::verify<E>(key.pvk, other, r.proofs[i])) << i;
    }
  }
}

const cli::BenchCircuit<E>& porep() {
  static const auto bc = cli::make_bench_circuit<E>("porep", 11, 3);
  return bc;
}

}  // namespace

TEST(CudaPipeline, PorepStageEqualsTheCpuStage) {
  SPLITPROVE_REQUIRE_GPU();
  const auto& bc = porep();
  auto st = cuda::gpu_stage(gpu());
  auto src = bc.source(0);
  for (std::size_t p : {0u, 2u}) {
    SCOPED_TRACE(p);
    compare_stages(*bc.key, *src, p, *st);
  }
}

TEST(CudaPipeline, CircomFixturesStageEqualsTheCpuStage) {
  SPLITPROVE_REQUIRE_GPU();
  auto st = cuda::gpu_stage(gpu());
  for (const char* c : {"multiplier", "mixed", "chain"}) {
    SCOPED_TRACE(c);
    auto pk = std::make_shared<const zk::ProvingKey<E>>(
        io::read_zkey<E>(fixture(std::string(c) + ".zkey")));
    auto key = pipeline::Key<E>::prepare(pk);
    std::vector<io::Witness<E>> ws(1, io::read_wtns<E>(fixture(std::string(c) + ".wtns")));
    pipeline::CircomSource<E> src(pk, ws, nullptr, c);
    compare_stages(*key, src, 0, *st);
  }
}

TEST(CudaPipeline, EngineProofsOnTheCudaStagesVerify) {
  SPLITPROVE_REQUIRE_GPU();
  const auto& bc = porep();
  for (bool g2_gpu : {true, false}) {
    SCOPED_TRACE(g2_gpu ? "G2 on the GPU" : "G2 on the CPU");
    pipeline::EngineConfig cfg;
    cfg.synthesis_workers = 2;
    cfg.gpu_workers = 2;
    pipeline::Engine<E> engine(
        cfg, cuda::gpu_stage(gpu()),
        g2_gpu ? cuda::g2_stage(gpu()) : pipeline::cpu_g2_stage<E>());
    auto id0 = engine.submit({bc.source(0), bc.key, 3});
    auto id1 = engine.submit({bc.source(1), bc.key, 3});
    expect_verified(engine.wait(id0), *bc.key, 3);
    expect_verified(engine.wait(id1), *bc.key, 3);
    // Only the workers' scratch is still held; shutdown gives it back.
    EXPECT_EQ(engine.budget().books().used, engine.worker_scratch_bytes());
    engine.shutdown();
    EXPECT_EQ(engine.budget().books().used, 0u);
  }
  // The key went up once for all partitions and jobs; evict gives its device bytes back.
  auto rep = cuda::report(*gpu());
  EXPECT_GE(rep.resident_keys, 1u);
  EXPECT_GT(rep.key_bytes, 0u);
  EXPECT_GE(rep.srs_bytes, rep.key_bytes);
  cuda::evict(*gpu(), bc.key->pk.get());
  EXPECT_EQ(cuda::report(*gpu()).resident_keys, rep.resident_keys - 1);
  EXPECT_LT(cuda::report(*gpu()).srs_bytes, rep.srs_bytes);
  EXPECT_LT(cuda::report(*gpu()).key_bytes, rep.key_bytes);
}

// A key with the monomial H basis (bellman-style, τ^i·Z(τ)/δ): the CUDA stage runs
// FrNtt::h_coefficients for it, equals the CPU stage (poly::h_coefficients), and the engine's
// proofs verify. The same points read as an odd-coset key give another H (the flag is obeyed).
TEST(CudaPipeline, MonomialHBasisKeyProvesOnTheCudaStages) {
  SPLITPROVE_REQUIRE_GPU();
  const std::uint32_t steps = (1u << 11) - 6;  // domain 2^11
  auto r1cs = cli::detail::chain_r1cs<E>(steps);
  auto pk =
      std::make_shared<const zk::ProvingKey<E>>(zk::dev_setup<E>(r1cs, {}, zk::HBasis::monomial));
  ASSERT_EQ(pk->domain_size, 1u << 11);
  auto key = pipeline::Key<E>::prepare(pk);
  auto source = [&](std::uint32_t job) {
    std::vector<io::Witness<E>> ws;
    for (std::uint32_t p = 0; p < 2; ++p)
      ws.push_back(cli::detail::chain_witness<E>(steps, 1000 * job + p + 2, job));
    return std::make_shared<const pipeline::CircomSource<E>>(pk, std::move(ws), nullptr, "chain");
  };
  auto st = cuda::gpu_stage(gpu());
  compare_stages(*key, *source(0), 1, *st);
  {
    auto odd = std::make_shared<zk::ProvingKey<E>>(*pk);
    odd->h_basis = zk::HBasis::odd_coset;
    auto okey = pipeline::Key<E>::prepare(odd);
    const Inputs in = synthesize(*source(0), 1);
    EXPECT_FALSE(run_stage(*st, *okey, in).h == run_stage(*st, *key, in).h);
    cuda::evict(*gpu(), odd.get());
  }
  pipeline::Engine<E> engine(pipeline::EngineConfig{}, cuda::gpu_stage(gpu()),
                             cuda::g2_stage(gpu()));
  expect_verified(engine.wait(engine.submit({source(0), key, 2})), *key, 2);
  engine.shutdown();
  cuda::evict(*gpu(), pk.get());
}

TEST(CudaPipeline, KeyIsUploadedOncePerGpu) {
  SPLITPROVE_REQUIRE_GPU();
  const auto& bc = porep();
  cuda::evict(*gpu());
  const auto before = cuda::report(*gpu()).key_uploads;
  pipeline::Engine<E> engine(pipeline::EngineConfig{}, cuda::gpu_stage(gpu()),
                             cuda::g2_stage(gpu()));
  for (std::uint32_t j = 0; j < 2; ++j)
    expect_verified(engine.wait(engine.submit({bc.source(j), bc.key, 2})), *bc.key, 2);
  EXPECT_EQ(cuda::report(*gpu()).key_uploads, before + 1);
  EXPECT_GT(cuda::report(*gpu()).key_bytes, 0u);
  cuda::evict(*gpu());
  EXPECT_EQ(cuda::report(*gpu()).key_bytes, 0u);
  EXPECT_EQ(cuda::report(*gpu()).srs_bytes, 0u);
  EXPECT_EQ(cuda::report(*gpu()).resident_keys, 0u);
}

TEST(CudaPipeline, StreamedKeyGivesTheSameResults) {
  SPLITPROVE_REQUIRE_GPU();
  cuda::GpuOptions o;
  o.budget_bytes = std::uint64_t(4) << 30;
  o.never_resident = true;
  auto g = cuda::open_gpu(o);
  const auto& bc = porep();
  auto src = bc.source(2);
  compare_stages(*bc.key, *src, 1, *cuda::gpu_stage(g));
  EXPECT_EQ(cuda::report(*g).streamed_keys, 1u);
  EXPECT_EQ(cuda::report(*g).resident_keys, 0u);
  EXPECT_EQ(cuda::report(*g).key_bytes, 0u);  // no point stayed on the device
}

TEST(CudaPipeline, SnarkjsFixturesThroughTheEngineOnTheGpu) {
  SPLITPROVE_REQUIRE_GPU();
  pipeline::Engine<E> engine(pipeline::EngineConfig{}, cuda::gpu_stage(gpu()),
                             cuda::g2_stage(gpu()));
  for (const char* c : {"multiplier", "mixed", "chain"}) {
    SCOPED_TRACE(c);
    auto pk = std::make_shared<const zk::ProvingKey<E>>(
        io::read_zkey<E>(fixture(std::string(c) + ".zkey")));
    auto key = pipeline::Key<E>::prepare(pk);
    std::vector<io::Witness<E>> ws(2, io::read_wtns<E>(fixture(std::string(c) + ".wtns")));
    auto r1cs =
        std::make_shared<const io::R1cs<E>>(io::read_r1cs<E>(fixture(std::string(c) + ".r1cs")));
    auto src = std::make_shared<pipeline::CircomSource<E>>(pk, ws, r1cs, c);
    auto r = engine.wait(engine.submit({src, key, ws.size()}));
    expect_verified(r, *key, ws.size());
    auto pvk = zk::prepare<E>(io::read_vkey_json<E>(fixture(std::string(c) + ".vkey.json")));
    for (auto& p : r.proofs) EXPECT_TRUE(zk::verify<E>(pvk, r.publics[0], p));
  }
}

TEST(CudaPipeline, WrongWitnessIsRejected) {
  SPLITPROVE_REQUIRE_GPU();
  pipeline::Engine<E> engine(pipeline::EngineConfig{}, cuda::gpu_stage(gpu()),
                             cuda::g2_stage(gpu()));
  auto pk = std::make_shared<const zk::ProvingKey<E>>(io::read_zkey<E>(fixture("chain.zkey")));
  auto key = pipeline::Key<E>::prepare(pk);
  auto w = io::read_wtns<E>(fixture("chain.wtns"));
  std::vector<io::Witness<E>> ws(2, w);
  ws[1].values.back() += Fr::one();  // a private wire off: no r1cs given, so only the proof tells
  auto src = std::make_shared<pipeline::CircomSource<E>>(pk, ws, nullptr, "chain");
  auto r = engine.wait(engine.submit({src, key, ws.size()}));
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("partition 1"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("does not verify"), std::string::npos) << r.error;
  EXPECT_EQ(engine.budget().books().used, engine.worker_scratch_bytes());
  engine.shutdown();
  EXPECT_EQ(engine.budget().books().used, 0u);
}

TEST(CudaPipeline, BackendSelection) {
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
  EXPECT_EQ(b.gpu->name(), "cuda");
  EXPECT_EQ(b.g2->name(), "cuda");
  EXPECT_EQ(b.device_sources.size(), 2u);
  pipeline::BackendRequest g2cpu;
  g2cpu.g2_on = "cpu";
  EXPECT_EQ(pipeline::make_backend<E>(g2cpu).g2->name(), "cpu");
}

TEST(CudaPipeline, NoDeviceMeansTheCpuStages) {
  if (cuda::testing::no_gpu_reason().empty()) GTEST_SKIP() << "NoDevice test: a GPU is present";
  cuda::install_pipeline_backend();
  auto b = pipeline::make_backend<E>({});
  EXPECT_EQ(b.name, "cpu");
  EXPECT_NE(b.detail.find("no CUDA device"), std::string::npos) << b.detail;
  pipeline::BackendRequest want;
  want.backend = "cuda";
  EXPECT_THROW(pipeline::make_backend<E>(want), Error);
}

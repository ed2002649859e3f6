// The pipeline engine on several (logical) devices (pipeline/device.hpp), on the CPU backend so
// that CI runs it: a job's partitions spread over every device; a device that faults is taken out
// of service and its partitions are proved on the others; a partition that breaks every device it
// meets fails only its job; with no device left every job fails and submit refuses; the books
// return to zero and every proof verifies. Also the options that choose devices.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "circuit/native_source.hpp"
#include "circuit/porep.hpp"
#include "circuit/r1cs.hpp"
#include "mem/model.hpp"
#include "pipeline/backend.hpp"
#include "pipeline/engine.hpp"
#include "pipeline_test_util.hpp"
#include "splitprove/error.hpp"
#include "zk/groth16.hpp"
#include "zk/setup.hpp"

using namespace splitprove;
using namespace std::chrono_literals;
using splitprove::testing::items_held;
using splitprove::testing::small_porep_params;
using splitprove::testing::expect_valid_proofs;
using E = ec::Bls12_381;
using Fr = E::Fr;

namespace {

struct Native {
  std::shared_ptr<const circuit::ConstraintSystem<Fr>> cs = [] {
    auto rec = circuit::record_porep<Fr>(small_porep_params(3));
    return std::make_shared<const circuit::ConstraintSystem<Fr>>(std::move(rec.cs));
  }();
  std::shared_ptr<const zk::ProvingKey<E>> pk =
      std::make_shared<const zk::ProvingKey<E>>(zk::dev_setup<E>(circuit::to_r1cs<E>(*cs)));
  std::shared_ptr<const pipeline::Key<E>> key = pipeline::Key<E>::prepare(pk);
  // Another key of the same circuit (a GPU stage below breaks on it).
  std::shared_ptr<const pipeline::Key<E>> poison = pipeline::Key<E>::prepare(
      std::make_shared<const zk::ProvingKey<E>>(zk::dev_setup<E>(circuit::to_r1cs<E>(*cs))));
  pipeline::JobSpec<E> job(std::uint64_t seed, std::size_t n) const {
    return {circuit::porep_source<Fr>(small_porep_params(seed), cs), key, n};
  }
};

const Native& native() {
  static Native n;
  return n;
}

// The CPU GPU stage, taking its time (so that every device's worker gets partitions), and
// faulting (DeviceFault) on every partition of the poison key.
class TestGpu final : public pipeline::GpuStageAround<E> {
 public:
  explicit TestGpu(std::chrono::milliseconds delay = 20ms, const pipeline::Key<E>* poison = nullptr)
      : GpuStageAround(pipeline::cpu_gpu_stage<E>()), delay_(delay), poison_(poison) {}
  std::string name() const override { return "test"; }
  zk::G1Results<E> run(const pipeline::Key<E>& key, mem::Buffer<Fr> z, mem::Buffer<Fr> a,
                       mem::Buffer<Fr> b) override {
    if (&key == poison_) throw DeviceFault("this key breaks the device");
    std::this_thread::sleep_for(delay_);
    return GpuStageAround::run(key, std::move(z), std::move(a), std::move(b));
  }

 private:
  std::chrono::milliseconds delay_;
  const pipeline::Key<E>* poison_;
};

// The CPU G2 stage "on a device": its `at`-th run throws DeviceFault.
class FaultyG2 final : public pipeline::G2StageAround<E> {
 public:
  explicit FaultyG2(int at) : G2StageAround(pipeline::cpu_g2_stage<E>()), at_(at) {}
  std::string name() const override { return "test-g2"; }
  E::G2Jacobian run(const pipeline::Key<E>& key, std::span<const Fr> compact) override {
    if (++runs_ == at_) throw DeviceFault("G2 device lost");
    return G2StageAround::run(key, compact);
  }

 private:
  const int at_;
  std::atomic<int> runs_{0};
};

// `n` devices of TestGpu stages and the CPU G2 stage, each with a state of its own.
std::vector<pipeline::DeviceStages<E>> test_devices(std::size_t n, const pipeline::Key<E>* poison = nullptr) {
  std::vector<pipeline::DeviceStages<E>> v;
  const auto g2 = pipeline::cpu_g2_stage<E>();
  for (std::size_t i = 0; i < n; ++i)
    v.push_back({std::make_shared<TestGpu>(20ms, poison), g2,
                 std::make_shared<pipeline::DeviceState>("dev" + std::to_string(i)), false});
  return v;
}

}  // namespace

TEST(PipelineDevices, OptionsAreChecked) {
  EXPECT_EQ(pipeline::parse_device_list("0,2", "--devices"), (std::vector<int>{0, 2}));
  EXPECT_TRUE(pipeline::parse_device_list("all", "--devices").empty());
  EXPECT_TRUE(pipeline::parse_device_list("", "--devices").empty());
  for (const char* bad : {"1,,2", "x", "-1", "0,", "64", "1.5"}) {
    SCOPED_TRACE(bad);
    try {
      pipeline::parse_device_list(bad, "--devices");
      ADD_FAILURE() << "accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("--devices"), std::string::npos) << e.what();
    }
  }
  pipeline::BackendRequest r;
  EXPECT_NO_THROW(r.check());
  r.logical_devices = 0;
  EXPECT_THROW(r.check(), Error);
  r.logical_devices = pipeline::BackendRequest::kMaxLogical + 1;
  EXPECT_THROW(r.check(), Error);
  r.logical_devices = 2;
  r.devices = {1, 1};
  EXPECT_THROW(r.check(), Error);
  r.devices = {1, 0};
  EXPECT_NO_THROW(r.check());

  const auto f = pipeline::FaultInjection::parse("cpu1@3");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->device, "cpu1");
  EXPECT_EQ(f->at, 3u);
  EXPECT_FALSE(pipeline::FaultInjection::parse(""));
  for (const char* bad : {"cpu1", "@3", "cpu1@0", "cpu1@x", "cpu1@3x"}) {
    SCOPED_TRACE(bad);
    EXPECT_THROW(pipeline::FaultInjection::parse(bad), Error);
  }

  // gw is per device: the model and the workers' scratch count gw × devices.
  pipeline::EngineConfig cfg;
  cfg.gpu_workers = 2;
  cfg.devices = 3;
  cfg.gpu_scratch = 10;
  EXPECT_EQ(cfg.total_gpu_workers(), 6u);
  EXPECT_EQ(cfg.worker_scratch(), cfg.synthesis_workers * cfg.synth_scratch + 6 * 10 +
                                      cfg.g2_workers * cfg.g2_worker_scratch());
  pipeline::PartitionCost cost;
  cost.ab = 2 << 20;
  EXPECT_EQ(cfg.model_config(cost, 1, 1).gpu_workers, 6u);

  // Several devices: the G2 backlog holds a slot per GPU worker (each takes one before its
  // partition), and a G2 stage on the devices gets a worker per device; one device: unchanged.
  pipeline::EngineConfig one;
  one.gpu_workers = 2;
  one.fit_devices(1, true);
  EXPECT_EQ(one.g2_queue, 1u);
  EXPECT_EQ(one.g2_workers, 1u);
  pipeline::EngineConfig four;
  four.gpu_workers = 2;
  four.fit_devices(4, false);
  EXPECT_EQ(four.devices, 4u);
  EXPECT_EQ(four.g2_queue, 8u);
  EXPECT_EQ(four.g2_workers, 1u);
  four.fit_devices(4, true);
  EXPECT_EQ(four.g2_workers, 4u);
}

TEST(PipelineDevices, TheCpuBackendSplitsIntoLogicalDevices) {
  pipeline::BackendRequest req;
  req.backend = "cpu";
  auto one = pipeline::make_backend<E>(req);
  ASSERT_EQ(one.stages.size(), 1u);
  EXPECT_EQ(one.stages[0].state->name(), "cpu");
  EXPECT_FALSE(one.devices);  // the CPU stages as one device: nothing to report per device
  req.logical_devices = 3;
  auto three = pipeline::make_backend<E>(req);
  ASSERT_EQ(three.stages.size(), 3u);
  ASSERT_TRUE(three.devices);
  const auto st = three.devices();
  ASSERT_EQ(st.size(), 3u);
  for (unsigned i = 0; i < 3; ++i) {
    EXPECT_EQ(st[i].logical, "cpu" + std::to_string(i));
    EXPECT_TRUE(st[i].healthy);
    EXPECT_EQ(three.stages[i].state->name(), st[i].logical);
  }
  // Two backends of the same devices (the daemon's two curves) share their states.
  auto again = pipeline::make_backend<ec::Bn254>(req);
  EXPECT_EQ(again.stages[1].state.get(), three.stages[1].state.get());
  EXPECT_NE(three.describe().find("3 devices"), std::string::npos) << three.describe();
}

TEST(PipelineDevices, PartitionsSpreadOverEveryDevice) {
  const auto& nv = native();
  pipeline::EngineConfig cfg;
  cfg.synthesis_workers = 3;
  cfg.gpu_queue = 3;
  pipeline::Engine<E> engine(cfg, test_devices(3));
  EXPECT_EQ(engine.config().total_gpu_workers(), 3u);
  EXPECT_EQ(engine.config().g2_queue, 3u);  // fit_devices: every device's GPU stage can run at once
  auto a = engine.submit(nv.job(5, 6));
  auto b = engine.submit(nv.job(6, 6));
  expect_valid_proofs<E>(engine.wait(a), *nv.key, 6);
  expect_valid_proofs<E>(engine.wait(b), *nv.key, 6);
  const auto st = engine.stats();
  ASSERT_EQ(st.devices.size(), 3u);
  std::uint64_t sum = 0;
  for (const auto& d : st.devices) {
    EXPECT_GT(d.gpu_items, 0u) << d.name;
    EXPECT_TRUE(d.healthy);
    sum += d.gpu_items;
  }
  EXPECT_EQ(sum, 12u);
  EXPECT_EQ(st.partitions_retried, 0u);
  EXPECT_EQ(items_held(engine), 0u);
  // The books stayed within what the model allows for 3 devices' GPU workers.
  const auto cost = engine.cost_of(nv.job(5, 1));
  const auto pred = mem::predict(mem::pipeline_model(engine.config().model_config(cost, 2, 6),
                                                     mem::Policy::splitprove));
  EXPECT_LE(engine.budget().books().peak, pred.work_bytes);
  engine.shutdown();
  EXPECT_EQ(engine.budget().books().used, 0u);
}

// Engine::prepare (a daemon's key preload, a benchmark's cold start) reaches every device's GPU
// and G2 stage once, with the key, before any partition; the work then proves as before.
TEST(PipelineDevices, PrepareReachesEveryDevicesStagesBeforeWork) {
  const auto& nv = native();
  struct Seen {
    std::mutex mu;
    std::vector<std::pair<std::string, const pipeline::Key<E>*>> calls;
    void add(std::string who, const pipeline::Key<E>& k) {
      std::lock_guard lk(mu);
      calls.emplace_back(std::move(who), &k);
    }
  };
  auto seen = std::make_shared<Seen>();
  struct Gpu final : pipeline::GpuStageAround<E> {
    Gpu(std::shared_ptr<Seen> s, std::string n)
        : GpuStageAround(pipeline::cpu_gpu_stage<E>()), seen(std::move(s)), who(std::move(n)) {}
    void prepare(const pipeline::Key<E>& k) override { seen->add(who, k); }
    std::shared_ptr<Seen> seen;
    std::string who;
  };
  struct G2 final : pipeline::G2StageAround<E> {
    G2(std::shared_ptr<Seen> s, std::string n)
        : G2StageAround(pipeline::cpu_g2_stage<E>()), seen(std::move(s)), who(std::move(n)) {}
    void prepare(const pipeline::Key<E>& k) override { seen->add(who, k); }
    std::shared_ptr<Seen> seen;
    std::string who;
  };
  std::vector<pipeline::DeviceStages<E>> devs;
  for (int i = 0; i < 2; ++i) {
    const std::string d = "dev" + std::to_string(i);
    devs.push_back({std::make_shared<Gpu>(seen, d + " gpu"), std::make_shared<G2>(seen, d + " g2"),
                    std::make_shared<pipeline::DeviceState>(d), true});
  }
  pipeline::EngineConfig cfg;
  cfg.synthesis_workers = 2;
  pipeline::Engine<E> engine(cfg, devs);
  EXPECT_TRUE(seen->calls.empty());
  engine.prepare(*nv.key);
  std::vector<std::string> who;
  for (const auto& [w, k] : seen->calls) {
    EXPECT_EQ(k, nv.key.get()) << w;
    who.push_back(w);
  }
  std::sort(who.begin(), who.end());
  EXPECT_EQ(who, (std::vector<std::string>{"dev0 g2", "dev0 gpu", "dev1 g2", "dev1 gpu"}));
  expect_valid_proofs<E>(engine.wait(engine.submit(nv.job(7, 4))), *nv.key, 4);
  EXPECT_EQ(seen->calls.size(), 4u);  // the work does not prepare again
  engine.shutdown();
  EXPECT_EQ(engine.budget().books().used, 0u);
}

// A device that faults (SPLITPROVE_INJECT_DEVICE_FAULT through make_backend, as the daemon's
// test uses it) is taken out of service; its partition is proved again on another device and
// every job succeeds; later jobs use the others only.
TEST(PipelineDevices, AFaultyDevicesPartitionsFinishOnTheOthers) {
  const auto& nv = native();
  ::setenv("SPLITPROVE_INJECT_DEVICE_FAULT", "cpu1@2", 1);
  pipeline::BackendRequest req;
  req.backend = "cpu";
  req.logical_devices = 3;
  auto backend = pipeline::make_backend<E>(req);
  ::unsetenv("SPLITPROVE_INJECT_DEVICE_FAULT");
  pipeline::EngineConfig cfg;
  cfg.synthesis_workers = 3;
  cfg.gpu_queue = 3;
  pipeline::Engine<E> engine(cfg, backend.stages);
  auto a = engine.submit(nv.job(7, 8));
  auto b = engine.submit(nv.job(8, 4));
  expect_valid_proofs<E>(engine.wait(a), *nv.key, 8);
  expect_valid_proofs<E>(engine.wait(b), *nv.key, 4);
  auto st = engine.stats();
  EXPECT_FALSE(st.devices[1].healthy);
  EXPECT_NE(st.devices[1].error.find("injected device fault"), std::string::npos) << st.devices[1].error;
  EXPECT_NE(st.devices[1].error.find("GPU stage (cpu) on cpu1"), std::string::npos) << st.devices[1].error;
  EXPECT_EQ(st.devices[1].faults, 1u);
  EXPECT_EQ(st.devices[1].gpu_items, 1u);  // its first run ended well; the second faulted
  EXPECT_EQ(st.partitions_retried, 1u);
  EXPECT_EQ(st.partitions_failed, 0u);
  EXPECT_EQ(st.devices[0].gpu_items + st.devices[1].gpu_items + st.devices[2].gpu_items, 12u);
  // The backend's report says so too (the daemon's GetStatus and /metrics read it).
  const auto reported = backend.devices();
  EXPECT_FALSE(reported[1].healthy);
  EXPECT_EQ(reported[1].faults, 1u);
  EXPECT_TRUE(reported[0].healthy && reported[2].healthy);
  EXPECT_TRUE(engine.serving());
  expect_valid_proofs<E>(engine.wait(engine.submit(nv.job(9, 3))), *nv.key, 3);
  EXPECT_EQ(engine.stats().devices[1].gpu_items, 1u);
  EXPECT_EQ(items_held(engine), 0u);
  engine.shutdown();
  EXPECT_EQ(engine.budget().books().used, 0u);
}

// A partition that faults every device it meets fails its job after device_retries more devices
// (not the whole host); the other jobs finish on the device left.
TEST(PipelineDevices, APartitionThatBreaksDevicesFailsOnlyItsJob) {
  const auto& nv = native();
  pipeline::EngineConfig cfg;
  cfg.synthesis_workers = 2;
  pipeline::Engine<E> engine(cfg, test_devices(3, nv.poison.get()));
  auto bad = engine.submit({circuit::porep_source<Fr>(small_porep_params(10), nv.cs), nv.poison, 1});
  const auto r = engine.wait(bad);
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(r.device_fault);
  EXPECT_EQ(r.device_faults, 2u);
  EXPECT_NE(r.error.find("partition 0: device faults on 2 devices"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("this key breaks the device"), std::string::npos) << r.error;
  auto st = engine.stats();
  EXPECT_EQ(int(st.devices[0].healthy) + int(st.devices[1].healthy) + int(st.devices[2].healthy), 1);
  EXPECT_TRUE(engine.serving());
  expect_valid_proofs<E>(engine.wait(engine.submit(nv.job(11, 4))), *nv.key, 4);
  EXPECT_EQ(items_held(engine), 0u);
}

// With no device left in service every job fails (for its devices) and submit refuses.
TEST(PipelineDevices, NoDeviceLeftFailsEveryJobAndRefusesNewOnes) {
  const auto& nv = native();
  pipeline::EngineConfig cfg;
  cfg.synthesis_workers = 2;
  cfg.device_retries = 5;
  pipeline::Engine<E> engine(cfg, test_devices(2, nv.poison.get()));
  auto good = engine.submit(nv.job(12, 6));
  auto bad = engine.submit({circuit::porep_source<Fr>(small_porep_params(13), nv.cs), nv.poison, 2});
  const auto rb = engine.wait(bad);
  EXPECT_FALSE(rb.ok);
  EXPECT_TRUE(rb.device_fault);
  EXPECT_GE(rb.device_faults, 1u);
  EXPECT_NE(rb.error.find("every device is out of service"), std::string::npos) << rb.error;
  const auto rg = engine.wait(good);
  if (!rg.ok) {  // unless it finished before the devices went
    EXPECT_TRUE(rg.device_fault);
    EXPECT_NE(rg.error.find("every device is out of service"), std::string::npos) << rg.error;
  }
  EXPECT_FALSE(engine.serving());
  EXPECT_THROW(engine.submit(nv.job(14, 1)), DeviceFault);
  EXPECT_EQ(items_held(engine), 0u);
  engine.shutdown();
  EXPECT_EQ(engine.budget().books().used, 0u);
}

// A G2 stage on a device that faults: the device goes out of service, its G2 workers run the
// other device's G2 stage, the partition is proved again, and the job succeeds.
TEST(PipelineDevices, AG2DeviceFaultMovesItsWork) {
  const auto& nv = native();
  std::vector<pipeline::DeviceStages<E>> devs;
  for (int i = 0; i < 2; ++i)
    devs.push_back({std::make_shared<TestGpu>(5ms), i == 1 ? std::shared_ptr<pipeline::G2Stage<E>>(
                                                                 std::make_shared<FaultyG2>(1))
                                                           : pipeline::cpu_g2_stage<E>(),
                    std::make_shared<pipeline::DeviceState>("g" + std::to_string(i)), true});
  pipeline::EngineConfig cfg;
  cfg.g2_workers = 2;  // worker 1 prefers device 1
  cfg.synthesis_workers = 2;
  pipeline::Engine<E> engine(cfg, devs);
  expect_valid_proofs<E>(engine.wait(engine.submit(nv.job(15, 6))), *nv.key, 6);
  const auto st = engine.stats();
  EXPECT_TRUE(st.devices[0].healthy);
  EXPECT_FALSE(st.devices[1].healthy);
  EXPECT_NE(st.devices[1].error.find("G2 stage (test-g2) on g1: G2 device lost"), std::string::npos)
      << st.devices[1].error;
  // The faulted partition, and any that g1's GPU workers took as it went out of service.
  EXPECT_GE(st.partitions_retried, 1u);
  EXPECT_EQ(st.partitions_retried, st.devices[1].faults + st.partitions_rerouted);
  EXPECT_EQ(st.devices[0].g2_items + st.devices[1].g2_items, 6u);
  EXPECT_EQ(items_held(engine), 0u);
}

#pragma once
// The daemon's private parts, shared by its sources (daemon.cpp: claims and the partition's run;
// daemon_keys.cpp: keys; daemon_jobs.cpp: submit, cancel, lookups). Not for use outside
// src/service/.
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <fmt/format.h>

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "circuit/porep.hpp"
#include "circuit/r1cs.hpp"
#include "ec/curves.hpp"
#include "mem/budget.hpp"
#include "pipeline/backend.hpp"
#include "pipeline/engine.hpp"
#include "service/daemon.hpp"
#include "zk/setup.hpp"

namespace splitprove::service {

struct Daemon::Loaded {
  KeyRecord rec;
  ec::CurveId curve{};
  std::uint64_t host_bytes = 0;
  std::shared_ptr<const zk::ProvingKey<ec::Bls12_381>> pk_bls;
  std::shared_ptr<const pipeline::Key<ec::Bls12_381>> key_bls;
  std::shared_ptr<const zk::ProvingKey<ec::Bn254>> pk_bn;
  std::shared_ptr<const pipeline::Key<ec::Bn254>> key_bn;
  mem::Reservation booked;  // host_bytes under tag srs in the engines' budget
  // Native keys: the recorded circuit (its structure does not depend on the data seed).
  std::shared_ptr<const circuit::ConstraintSystem<ec::Bls12_381::Fr>> cs_bls;
  std::shared_ptr<const circuit::ConstraintSystem<ec::Bn254::Fr>> cs_bn;

  template <class E>
  auto& pk() {
    if constexpr (std::is_same_v<E, ec::Bls12_381>) return pk_bls; else return pk_bn;
  }
  template <class E>
  auto& key() {
    if constexpr (std::is_same_v<E, ec::Bls12_381>) return key_bls; else return key_bn;
  }
  template <class E>
  auto& cs() {
    if constexpr (std::is_same_v<E, ec::Bls12_381>) return cs_bls; else return cs_bn;
  }
};

namespace daemon_detail {

// Partition p of a source as an engine job of one partition (the engine proves 0..n-1).
template <class Fr>
class OnePartition final : public circuit::PartitionSource<Fr> {
 public:
  OnePartition(std::shared_ptr<const circuit::PartitionSource<Fr>> src, std::size_t p) : src_(std::move(src)), p_(p) {}
  circuit::Shape shape() const override { return src_->shape(); }
  std::string describe() const override { return fmt::format("{} partition {}", src_->describe(), p_); }
  void synthesize(std::size_t, std::span<Fr> z, std::span<Fr> a, std::span<Fr> b,
                  const std::stop_token& stop) const override {
    src_->synthesize(p_, z, a, b, stop);
  }

 private:
  std::shared_ptr<const circuit::PartitionSource<Fr>> src_;
  std::size_t p_;
};

template <class Fr>
std::shared_ptr<const circuit::ConstraintSystem<Fr>> record_native(std::uint32_t log2) {
  return std::make_shared<const circuit::ConstraintSystem<Fr>>(
      circuit::record_porep<Fr>(circuit::porep_for_log2(log2)).cs);
}

}  // namespace daemon_detail

struct Daemon::Engines {
  Engines(const DaemonConfig& c, std::function<void(int, std::uint64_t, std::string_view, bool)> obs)
      : cfg(c),
        observer(std::move(obs)),
        budget(c.budget ? std::make_shared<mem::MemoryBudget>(c.budget, "host") : nullptr) {}
  DaemonConfig cfg;
  std::function<void(int, std::uint64_t, std::string_view, bool)> observer;
  // With --budget: one budget for both curves' engines, resident keys included (null: none, each
  // engine keeps its own books).
  std::shared_ptr<mem::MemoryBudget> budget;
  std::mutex mu;
  std::unique_ptr<pipeline::Engine<ec::Bls12_381>> bls;
  std::unique_ptr<pipeline::Engine<ec::Bn254>> bn;
  std::string backend;
  std::function<std::vector<pipeline::DeviceStatus>()> devices;  // the device backend's, if any

  template <class E>
  pipeline::Engine<E>& get() {
    std::lock_guard lk(mu);
    auto& slot = [&]() -> std::unique_ptr<pipeline::Engine<E>>& {
      if constexpr (std::is_same_v<E, ec::Bls12_381>) return bls; else return bn;
    }();
    if (!slot) {
      pipeline::EngineConfig ec;
      ec.synthesis_workers = cfg.synthesis_workers;
      ec.gpu_workers = cfg.gpu_workers;
      ec.host_budget = cfg.budget;
      ec.shared_budget = budget;
      pipeline::BackendRequest req;
      req.backend = cfg.backend;
      req.devices = cfg.devices;
      req.logical_devices = cfg.logical_devices;
      auto b = pipeline::make_backend<E>(req);
      ec.pin_buffers_for(b.pin_host_buffers);
      ec.check();
      backend = b.describe();
      if (b.devices && !devices) devices = b.devices;  // both curves' backends share the device
      slot = std::make_unique<pipeline::Engine<E>>(ec, b.stages);
      slot->set_stage_observer([obs = observer](std::uint64_t job, std::size_t, std::string_view stage,
                                                bool start) { obs(int(E::kId), job, stage, start); });
    }
    return *slot;
  }
  // The (logical) devices of the engine of E, made now if it is not yet: its GPU workers in all.
  template <class E>
  std::uint32_t gpu_workers() {
    return get<E>().config().total_gpu_workers();
  }
  // Whether a device is in service (true before any engine exists).
  bool serving() {
    std::lock_guard lk(mu);
    return (!bls || bls->serving()) && (!bn || bn->serving());
  }
  void shutdown() {
    std::lock_guard lk(mu);
    if (bls) bls->shutdown();
    if (bn) bn->shutdown();
  }
  // The books of every budget the engines use, summed (capacity: the one budget's, else 0).
  mem::BudgetBooks all_books() {
    std::lock_guard lk(mu);
    if (budget) return budget->books();
    mem::BudgetBooks sum;
    for (const mem::MemoryBudget* b : {bls ? &bls->budget() : nullptr, bn ? &bn->budget() : nullptr}) {
      if (!b) continue;
      const auto k = b->books();
      sum.used += k.used;
      sum.peak += k.peak;
      sum.waiting += k.waiting;
      for (std::size_t t = 0; t < k.tags.size(); ++t) sum.tags[t].bytes += k.tags[t].bytes;
    }
    return sum;
  }
  void books(DaemonStatus& s) {
    const mem::BudgetBooks b = all_books();
    if (cfg.budget) s.budget_total += b.capacity;  // 0: no cap
    s.budget_used += b.used;
    s.budget_peak += b.peak;
    for (std::size_t t = 0; t < b.tags.size(); ++t)
      if (b.tags[t].bytes) s.budget_by_tag[std::string(mem::tag_name(mem::Tag(t)))] += b.tags[t].bytes;
    std::lock_guard lk(mu);
    s.backend = backend.empty() ? cfg.backend : backend;
    if (devices) s.gpus = devices();
  }
};

struct Daemon::Histograms {
  explicit Histograms(prometheus::Registry& reg)
      : stage(prometheus::BuildHistogram()
                  .Name("splitprove_stage_seconds")
                  .Help("Time a partition spent in each engine stage")
                  .Register(reg)),
        partition(prometheus::BuildHistogram()
                      .Name("splitprove_partition_seconds")
                      .Help("Claim to commit of a partition")
                      .Register(reg)) {}
  static prometheus::Histogram::BucketBoundaries buckets() {
    return {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 60, 150, 600};
  }
  prometheus::Histogram& of(std::string_view s) {
    std::lock_guard lk(mu);
    auto it = by_stage.find(std::string(s));
    if (it == by_stage.end())
      it = by_stage.emplace(std::string(s), &stage.Add({{"stage", std::string(s)}}, buckets())).first;
    return *it->second;
  }
  prometheus::Family<prometheus::Histogram>& stage;
  prometheus::Family<prometheus::Histogram>& partition;
  prometheus::Histogram* done = nullptr;
  std::mutex mu;
  std::map<std::string, prometheus::Histogram*> by_stage;
};

}  // namespace splitprove::service

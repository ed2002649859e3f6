#pragma once
// NativeSource: a PartitionSource (circuit/source.hpp) for a circuit written in C++. One recorded
// ConstraintSystem (shared, immutable) plus a witness generator that runs the same circuit
// function in synthesis mode for a partition; synthesize() fills z through a Synthesizer over the
// engine's z span, then a, b by the recorded matrices (ConstraintSystem::evaluate).
//
// Thread safety: the constraint system is only read, and the generator must be a pure function
// of the partition (it is called from several threads at once). Each partition's phases (the
// witness, a and b, the check) are timed and summed under a lock (phases()).
#include <fmt/format.h>

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "circuit/constraint_system.hpp"
#include "circuit/source.hpp"

namespace splitprove::circuit {

template <class Fr>
class NativeSource final : public PartitionSource<Fr> {
 public:
  using Generator = std::function<void(Synthesizer<Fr>& cs, size_t partition)>;
  struct Options {
    // Also compute C·z, compare it with a·b and name the first unsatisfied constraint (about half
    // as much SpMV work again). Without it a wrong assignment is still caught, later: its proof
    // does not verify.
    bool check = true;
    // Host bytes the generator needs while it runs (reported in shape().scratch_bytes).
    uint64_t scratch_bytes = 0;
  };

  NativeSource(std::shared_ptr<const ConstraintSystem<Fr>> cs, Generator gen, Options opt)
      : cs_(std::move(cs)), gen_(std::move(gen)), opt_(opt) {
    if (!cs_) throw Error("NativeSource: no constraint system");
    if (!gen_) throw Error(fmt::format("NativeSource {}: no witness generator", cs_->name));
  }

  Shape shape() const override {
    Shape s = cs_->shape();
    s.scratch_bytes = opt_.scratch_bytes;
    // The Synthesizer assigns every wire (finish() checks it) and evaluate() every row.
    s.fills_every_value = true;
    // Shares the constraint system's ownership: valid as long as anyone holds the shape.
    s.binary_wires = std::shared_ptr<const std::vector<bool>>(cs_, &cs_->binary);
    return s;
  }
  std::string describe() const override { return cs_->name; }
  const ConstraintSystem<Fr>& constraint_system() const { return *cs_; }
  bool checks() const { return opt_.check; }

  void synthesize(size_t partition, std::span<Fr> z, std::span<Fr> a, std::span<Fr> b,
                  const std::stop_token& stop) const override {
    const std::string where = fmt::format("{} partition {}", cs_->name, partition);
    const Shape s = cs_->shape();
    if (z.size() != s.n_vars || a.size() != s.domain_size || b.size() != s.domain_size)
      throw Error(fmt::format("{}: buffers of {}, {}, {} values for a shape of {} variables and a "
                              "domain of {}", where, z.size(), a.size(), b.size(), s.n_vars,
                              s.domain_size));
    if (stop.stop_requested()) return;
    using Clock = std::chrono::steady_clock;
    const auto t0 = Clock::now();
    try {
      Synthesizer<Fr> syn(z, cs_->n_public);
      gen_(syn, partition);
      syn.finish();
    } catch (const Error& e) {
      throw Error(fmt::format("{}: {}", where, e.what()));
    }
    if (stop.stop_requested()) return;
    const auto t1 = Clock::now();
    cs_->evaluate(z, a, b, stop);
    const auto t2 = Clock::now();
    if (opt_.check && !stop.stop_requested()) cs_->check(z, a, b, where);
    if (stop.stop_requested()) return;
    const auto t3 = Clock::now();
    auto secs = [](auto d) { return std::chrono::duration<double>(d).count(); };
    std::lock_guard lk(phases_mu_);
    ++phases_.partitions;
    phases_.witness_s += secs(t1 - t0);
    phases_.ab_s += secs(t2 - t1);
    phases_.check_s += secs(t3 - t2);
  }
  SynthesisPhases phases() const override {
    std::lock_guard lk(phases_mu_);
    return phases_;
  }

 private:
  std::shared_ptr<const ConstraintSystem<Fr>> cs_;
  Generator gen_;
  Options opt_;
  mutable std::mutex phases_mu_;
  mutable SynthesisPhases phases_;  // of the partitions synthesized whole
};

}  // namespace splitprove::circuit

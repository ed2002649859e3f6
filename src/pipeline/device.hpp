#pragma once
// The devices the pipeline's GPU and G2 stages run on (DESIGN §3). A backend hands the engine one
// set of stages per device: a physical GPU, a logical share of one (its own device budget, pool
// and resident keys), or a logical CPU device (the CPU stages under a name of their own, so that
// the scheduling and the failure handling of several devices run, and are tested, without a GPU).
//
// The engine runs `gpu_workers` GPU-stage workers per device, all taking partitions from the one
// GPU queue (a partition goes to the first device free to start it, and a job's partitions spread
// over the devices); its G2 workers run the G2 stage of any healthy device.
//
// Health. A stage that throws DeviceFault (splitprove/error.hpp) takes its device out of service
// for the life of the process: its DeviceState says down and why, every engine whose stages run
// on it stops giving it partitions, and the partition is proved again, from synthesis, on another
// device. A partition that meets device faults on more devices than EngineConfig::device_retries
// allows fails its job instead (a partition that breaks every device it touches must not take the
// whole host down); an engine left with no healthy device fails its jobs and refuses new ones.
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "pipeline/prover.hpp"

namespace splitprove::pipeline {

// One device's health and counters. Shared by every engine (both curves) whose stages run on the
// device: device_state(name) returns the one object of that name while any holder keeps it.
class DeviceState {
 public:
  explicit DeviceState(std::string name) : name_(std::move(name)) {}
  const std::string& name() const { return name_; }
  bool healthy() const { return healthy_.load(std::memory_order_acquire); }
  // Why it is down ("" while healthy).
  std::string error() const {
    std::lock_guard lk(mu_);
    return error_;
  }
  // Takes the device out of service with `why`; true for the call that did (the first reason stays).
  bool fail(const std::string& why) {
    std::lock_guard lk(mu_);
    ++faults_;
    if (!healthy_.load(std::memory_order_relaxed)) return false;
    error_ = why;
    healthy_.store(false, std::memory_order_release);
    return true;
  }
  // The GPU stage ran one partition here for `seconds`.
  void ran(double seconds) {
    std::lock_guard lk(mu_);
    ++partitions_;
    busy_s_ += seconds;
  }
  struct Counters {
    std::uint64_t partitions = 0;  // GPU-stage runs that ended well
    std::uint64_t faults = 0;      // device faults seen
    double busy_s = 0;
  };
  Counters counters() const {
    std::lock_guard lk(mu_);
    return {partitions_, faults_, busy_s_};
  }

 private:
  const std::string name_;
  std::atomic<bool> healthy_{true};
  mutable std::mutex mu_;
  std::string error_;
  std::uint64_t partitions_ = 0, faults_ = 0;
  double busy_s_ = 0;
};

// The process's state of the device called `name` (made on first use; shared while held).
std::shared_ptr<DeviceState> device_state(const std::string& name);

// One device's stages.
template <class E>
struct DeviceStages {
  std::shared_ptr<GpuStage<E>> gpu;
  std::shared_ptr<G2Stage<E>> g2;
  std::shared_ptr<DeviceState> state;  // never null in an engine
  // The G2 stage runs on this device (it goes out of service with it). false: it runs on host
  // threads, which every device's G2 workers share.
  bool g2_on_device = false;
};

// Fault injection, for tests of the failure handling (CI has no GPU to break): the device called
// `device` throws DeviceFault from the stage run that is its `at`-th (1-based) and every later one.
// Read from SPLITPROVE_INJECT_DEVICE_FAULT="<device>@<n>" by make_backend (pipeline/backend.hpp).
struct FaultInjection {
  std::string device;
  std::uint64_t at = 0;  // 0: none
  // Parses "<device>@<n>"; nullopt for "" ; Error naming the text when malformed.
  static std::optional<FaultInjection> parse(const std::string& text);
};
// Wraps `s`'s stages so that they fault as `f` says (when f.device is s.state's name).
template <class E>
DeviceStages<E> inject_faults(DeviceStages<E> s, const FaultInjection& f);

}  // namespace splitprove::pipeline

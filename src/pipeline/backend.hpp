#pragma once
// Which backend runs the pipeline's GPU and G2 stages (DESIGN §3). The library core knows only the
// CPU stages; a device backend (src/cuda) registers a provider here when the program links it and
// calls its installer (the CLI and the GPU tests do), so the core never depends on CUDA.
//
//   backend "auto": the registered device backend when it finds a device, else the CPU stages;
//           "cpu":  the CPU stages; "cuda": the device backend, or an Error saying why not.
//   g2_on   "auto": the G2 stage on the device when the device backend runs (the CPU G2 MSM
//           dominates a partition on the GPU host), "cpu" / "gpu": forced.
//   devices the GPUs to run on (empty: every visible one); logical_devices splits each of them
//           (or the CPU backend) into that many logical devices, each with its own stages,
//           workers, device budget (an equal share) and resident keys (pipeline/device.hpp).
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "mem/sampler.hpp"
#include "pipeline/device.hpp"
#include "pipeline/prover.hpp"

namespace splitprove::pipeline {

struct BackendRequest {
  std::string backend = "auto";  // auto | cpu | cuda
  std::string g2_on = "auto";    // auto | cpu | gpu
  std::vector<int> devices;      // GPU indices; empty: every visible GPU
  unsigned logical_devices = 1;  // per physical device (or of the CPU backend): 1..kMaxLogical
  static constexpr unsigned kMaxLogical = 16;
  static constexpr std::size_t kMaxDevices = 64;
  // Throws Error naming the bad value.
  void check() const;
};

// "0,1,3" -> {0, 1, 3}; "" or "all" -> {} (every visible GPU). Error naming `what` when malformed.
std::vector<int> parse_device_list(const std::string& text, const std::string& what);

// One device as its backend reports it (the daemon's GetStatus and /metrics).
struct DeviceStatus {
  unsigned index = 0;      // the physical device
  std::string logical;     // the pipeline's name of it: "gpu0", "gpu0.1" (a logical share), "cpu1"
  std::string name;
  std::uint64_t total_bytes = 0, free_bytes = 0;  // as the driver reports them now
  std::uint64_t budget_capacity = 0, budget_used = 0, budget_peak = 0;  // the device budget
  std::uint64_t key_bytes = 0;  // resident keys' points
  std::size_t resident_keys = 0;
  double key_make_s = 0;  // seconds spent making key points on the device (keys made there)
  bool healthy = true;
  std::string error;  // why not healthy
  std::uint64_t partitions = 0, faults = 0;  // DeviceState::counters
};

template <class E>
struct Backend {
  std::string name = "cpu";  // the backend of the GPU stage: cpu | cuda
  std::string detail;        // e.g. the device, or why the CPU stages were chosen
  // One set of stages per (logical) device, at least one; all of one kind.
  std::vector<DeviceStages<E>> stages;
  GpuStage<E>& gpu() const { return *stages.at(0).gpu; }
  G2Stage<E>& g2() const { return *stages.at(0).g2; }
  // Device-memory sources for the memory sampler (column dev:<name>), one or more per GPU.
  std::vector<std::pair<std::string, mem::DeviceMemorySource>> device_sources;
  // The devices the stages run on, now, with their health (empty function: none, the CPU stages
  // as one device).
  std::function<std::vector<DeviceStatus>()> devices;
  // The stages copy the partition buffers to a device: make them pinned (BufferOptions::pin; the
  // backend installs the pin hooks, mem/pages.hpp).
  bool pin_host_buffers = false;
  // "gpu+g2:<where>", for reports.
  std::string describe() const;
};

// A device backend: returns the stages for the request, or nullopt with the reason in `why_not`
// when no device is usable.
template <class E>
using BackendProvider =
    std::function<std::optional<Backend<E>>(const BackendRequest&, std::string* why_not)>;

// A DeviceStatus of the (logical) device `state` names, its health and counters filled in.
DeviceStatus device_status(const DeviceState& state);

// Registers (or replaces) the device backend. Thread-safe.
template <class E>
void register_device_backend(std::string name, BackendProvider<E> provider);

// The stages for `req` (see the top of this file). Throws Error when "cuda" is asked for and is
// not available, naming the reason. SPLITPROVE_INJECT_DEVICE_FAULT (pipeline/device.hpp) applies.
template <class E>
Backend<E> make_backend(const BackendRequest& req);

}  // namespace splitprove::pipeline

#include "pipeline/backend.hpp"

#include <fmt/format.h>

#include <atomic>
#include <charconv>
#include <cstdlib>
#include <map>
#include <mutex>

#include "splitprove/error.hpp"
#include "ec/curves.hpp"

namespace splitprove::pipeline {

void BackendRequest::check() const {
  if (backend != "auto" && backend != "cpu" && backend != "cuda")
    throw Error(fmt::format("backend '{}': expected auto, cpu or cuda", backend));
  if (g2_on != "auto" && g2_on != "cpu" && g2_on != "gpu")
    throw Error(fmt::format("g2 placement '{}': expected auto, cpu or gpu", g2_on));
  if (backend == "cpu" && g2_on == "gpu")
    throw Error("--g2-on gpu needs a device backend (the backend is cpu)");
  if (logical_devices == 0 || logical_devices > kMaxLogical)
    throw Error(fmt::format("logical devices {}: 1..{} per device", logical_devices, kMaxLogical));
  if (devices.size() > kMaxDevices)
    throw Error(fmt::format("{} devices listed: at most {}", devices.size(), kMaxDevices));
  for (std::size_t i = 0; i < devices.size(); ++i) {
    if (devices[i] < 0 || std::size_t(devices[i]) >= kMaxDevices)
      throw Error(fmt::format("device {}: expected 0..{}", devices[i], kMaxDevices - 1));
    for (std::size_t j = 0; j < i; ++j)
      if (devices[j] == devices[i]) throw Error(fmt::format("device {} is listed twice", devices[i]));
  }
}

std::vector<int> parse_device_list(const std::string& text, const std::string& what) {
  std::vector<int> out;
  if (text.empty() || text == "all") return out;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t end = std::min(text.find(',', pos), text.size());
    const std::string_view item(text.data() + pos, end - pos);
    int v = -1;
    const auto [p, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (item.empty() || ec != std::errc() || p != item.data() + item.size() || v < 0 ||
        std::size_t(v) >= BackendRequest::kMaxDevices)
      throw Error(fmt::format("{} '{}': expected 'all' or device indices 0..{} separated by commas",
                              what, text, BackendRequest::kMaxDevices - 1));
    out.push_back(v);
    pos = end + 1;
  }
  return out;
}

std::shared_ptr<DeviceState> device_state(const std::string& name) {
  static std::mutex mu;
  static std::map<std::string, std::weak_ptr<DeviceState>> states;
  std::lock_guard lk(mu);
  auto& w = states[name];
  if (auto s = w.lock()) return s;
  auto s = std::make_shared<DeviceState>(name);
  w = s;
  return s;
}

DeviceStatus device_status(const DeviceState& state) {
  DeviceStatus d;
  d.logical = state.name();
  d.healthy = state.healthy();
  d.error = state.error();
  const auto c = state.counters();
  d.partitions = c.partitions;
  d.faults = c.faults;
  return d;
}

std::optional<FaultInjection> FaultInjection::parse(const std::string& text) {
  if (text.empty()) return std::nullopt;
  const auto at = text.rfind('@');
  FaultInjection f;
  if (at != std::string::npos && at > 0) {
    f.device = text.substr(0, at);
    const std::string n = text.substr(at + 1);
    const auto [p, ec] = std::from_chars(n.data(), n.data() + n.size(), f.at);
    if (ec == std::errc() && p == n.data() + n.size() && f.at > 0) return f;
  }
  throw Error(fmt::format("SPLITPROVE_INJECT_DEVICE_FAULT '{}': expected <device>@<n>, e.g. cpu1@3 "
                          "(the device's 3rd stage run and every later one fault)",
                          text));
}

namespace {

// Counts a device's stage runs and throws DeviceFault from the `at`-th on (FaultInjection).
class FaultCounter {
 public:
  FaultCounter(std::string device, std::uint64_t at) : device_(std::move(device)), at_(at) {}
  void tick(const char* stage) {
    const std::uint64_t n = ++runs_;
    if (n >= at_)
      throw DeviceFault(fmt::format(
          "injected device fault in the {} stage (its run {} on {}; SPLITPROVE_INJECT_DEVICE_FAULT)", stage,
          n, device_));
  }

 private:
  const std::string device_;
  const std::uint64_t at_;
  std::atomic<std::uint64_t> runs_{0};
};

template <class E>
class FaultyGpuStage final : public GpuStageAround<E> {
 public:
  using Fr = typename E::Fr;
  FaultyGpuStage(std::shared_ptr<GpuStage<E>> inner, std::shared_ptr<FaultCounter> c)
      : GpuStageAround<E>(std::move(inner)), c_(std::move(c)) {}
  zk::G1Results<E> run(const Key<E>& key, mem::Buffer<Fr> z, mem::Buffer<Fr> a,
                       mem::Buffer<Fr> b) override {
    c_->tick("GPU");
    return GpuStageAround<E>::run(key, std::move(z), std::move(a), std::move(b));
  }

 private:
  std::shared_ptr<FaultCounter> c_;
};

template <class E>
class FaultyG2Stage final : public G2StageAround<E> {
 public:
  using Fr = typename E::Fr;
  FaultyG2Stage(std::shared_ptr<G2Stage<E>> inner, std::shared_ptr<FaultCounter> c)
      : G2StageAround<E>(std::move(inner)), c_(std::move(c)) {}
  typename E::G2Jacobian run(const Key<E>& key, std::span<const Fr> compact) override {
    c_->tick("G2");
    return G2StageAround<E>::run(key, compact);
  }

 private:
  std::shared_ptr<FaultCounter> c_;
};

}  // namespace

template <class E>
DeviceStages<E> inject_faults(DeviceStages<E> s, const FaultInjection& f) {
  if (f.at == 0 || !s.state || s.state->name() != f.device) return s;
  // One count over the device's stage runs (a G2 stage on the device counts too).
  auto c = std::make_shared<FaultCounter>(f.device, f.at);
  s.gpu = std::make_shared<FaultyGpuStage<E>>(std::move(s.gpu), c);
  if (s.g2_on_device) s.g2 = std::make_shared<FaultyG2Stage<E>>(std::move(s.g2), c);
  return s;
}

template <class E>
std::string Backend<E>::describe() const {
  if (stages.empty()) return name + " (no stages)";
  return fmt::format("{} (G1/H stage: {}, G2 stage: {}{}){}", name, gpu().name(), g2().name(),
                     stages.size() > 1 ? fmt::format(", {} devices", stages.size()) : "",
                     detail.empty() ? "" : ", " + detail);
}

namespace {

template <class E>
struct Registry {
  std::mutex mu;
  std::string name;
  BackendProvider<E> provider;
  static Registry& get() {
    static Registry r;
    return r;
  }
};

}  // namespace

template <class E>
void register_device_backend(std::string name, BackendProvider<E> provider) {
  auto& r = Registry<E>::get();
  std::lock_guard lk(r.mu);
  r.name = std::move(name);
  r.provider = std::move(provider);
}

namespace {

// The CPU stages as `n` logical devices: "cpu" alone, or "cpu0".."cpu<n-1>" (own GPU-stage
// objects and workers; one G2 stage on host threads, which every device's G2 workers share).
template <class E>
Backend<E> cpu_backend(unsigned n) {
  Backend<E> b;
  const auto g2 = cpu_g2_stage<E>();
  for (unsigned i = 0; i < n; ++i) {
    DeviceStages<E> s;
    s.gpu = cpu_gpu_stage<E>();
    s.g2 = g2;
    s.state = device_state(n == 1 ? std::string("cpu") : fmt::format("cpu{}", i));
    b.stages.push_back(std::move(s));
  }
  if (n > 1) {
    std::vector<std::shared_ptr<DeviceState>> states;
    for (const auto& s : b.stages) states.push_back(s.state);
    b.devices = [states] {
      std::vector<DeviceStatus> out;
      for (unsigned i = 0; i < states.size(); ++i) {
        DeviceStatus d = device_status(*states[i]);
        d.index = i;
        d.name = "host threads";
        out.push_back(std::move(d));
      }
      return out;
    };
  }
  return b;
}

template <class E>
Backend<E> with_faults(Backend<E> b) {
  const char* env = std::getenv("SPLITPROVE_INJECT_DEVICE_FAULT");
  if (auto f = FaultInjection::parse(env ? env : ""))
    for (auto& s : b.stages) s = inject_faults<E>(std::move(s), *f);
  return b;
}

template <class E>
Backend<E> make_backend_of(const BackendRequest& req) {
  req.check();
  Backend<E> cpu = cpu_backend<E>(req.logical_devices);
  if (req.backend == "cpu") {
    cpu.detail = "asked for";
    return cpu;
  }
  auto& r = Registry<E>::get();
  BackendProvider<E> provider;
  std::string name;
  {
    std::lock_guard lk(r.mu);
    provider = r.provider;
    name = r.name;
  }
  std::string why = "this build has no device backend";
  if (provider) {
    why.clear();
    if (auto b = provider(req, &why)) return std::move(*b);
    if (why.empty()) why = name + ": no device";
  }
  if (req.backend == "cuda") throw Error("backend cuda is not available: " + why);
  if (req.g2_on == "gpu") throw Error("--g2-on gpu needs a device backend: " + why);
  cpu.detail = "no device backend (" + why + ")";
  return cpu;
}

}  // namespace

template <class E>
Backend<E> make_backend(const BackendRequest& req) {
  return with_faults(make_backend_of<E>(req));
}

#define SPLITPROVE_BACKEND_INSTANTIATE(E)                                    \
  template struct Backend<E>;                                                \
  template void register_device_backend<E>(std::string, BackendProvider<E>); \
  template Backend<E> make_backend<E>(const BackendRequest&);                \
  template DeviceStages<E> inject_faults<E>(DeviceStages<E>, const FaultInjection&);
SPLITPROVE_FOR_EACH_ENGINE(SPLITPROVE_BACKEND_INSTANTIATE)
#undef SPLITPROVE_BACKEND_INSTANTIATE

}  // namespace splitprove::pipeline

// The pipeline's stages on the CUDA backend (stage.hpp). Host C++: it drives the kernels through
// the CUDA-free headers of the backend (pool, ntt, msm, device).
#include "cuda/stage.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <map>
#include <mutex>
#include <tuple>

#include "cuda/device.hpp"
#include "cuda/msm.hpp"
#include "cuda/ntt.hpp"
#include "cuda/pool.hpp"
#include "mem/pages.hpp"
#include "mem/units.hpp"
#include "splitprove/error.hpp"
#include "util/env.hpp"
#include "util/phase_clock.hpp"

namespace splitprove::cuda {

namespace {

// Device bytes one GPU worker may hold for a partition of `n` domain rows and `vars` wires: a, b,
// c, z and the largest MSM's scratch (classification, sort keys and values for ~24 windows, the
// buckets and window partials). An over-estimate on purpose: it only decides residency.
std::uint64_t worker_bytes(std::uint64_t n, std::uint64_t vars) {
  const std::uint64_t m = std::max(n, vars);
  return 3 * n * 32 + vars * 32 + m * 24 * 24 + (std::uint64_t(512) << 20);
}

// The same for a key whose points are made on the device and cannot be streamed, where refusing
// on the over-estimate would refuse keys that fit: the H phase's a, b, c and the H MSM's class
// and digit buffers at 17 windows (16·W bytes a tail scalar, 8 of flags), the largest phase.
std::uint64_t worker_bytes_made_key(std::uint64_t n, std::uint64_t vars) {
  const std::uint64_t m = std::max(n, vars);
  return 3 * n * 32 + m * (16 * 17 + 8) + (std::uint64_t(512) << 20);
}

}  // namespace

// What the Gpu knows of a resident key without knowing its curve.
struct ResidentKeyBase {
  virtual ~ResidentKeyBase() = default;
  virtual bool expired() const = 0;
  virtual std::uint64_t bytes() const = 0;  // device bytes of its points
  bool streamed = false;
};

// The points of one key of engine E on the device (or nothing, when it is streamed).
template <class E>
struct ResidentKey final : ResidentKeyBase {
  using G1 = typename E::G1;
  using G2 = typename E::G2;
  std::weak_ptr<const zk::ProvingKey<E>> owner;  // the key these points belong to
  std::unique_ptr<DeviceBases<G1>> a, b1, l, h;
  std::unique_ptr<DeviceBases<G2>> b2;  // compact B2 bases (only when the G2 stage asked)

  bool expired() const override { return owner.expired(); }
  std::uint64_t bytes() const override {
    std::uint64_t s = 0;
    for (auto* p : {a.get(), b1.get(), l.get(), h.get()})
      if (p) s += p->size() * DeviceBases<G1>::kPointBytes;
    if (b2) s += b2->size() * DeviceBases<G2>::kPointBytes;
    return s;
  }
};

class Gpu {
 public:
  explicit Gpu(const GpuOptions& o) : opts_(o) {
    std::string why;
    const auto devs = list_devices(&why);
    if (devs.empty()) throw Error("cuda: " + why);
    // By index: list_devices leaves out a device whose properties cannot be read.
    const auto it = std::find_if(devs.begin(), devs.end(), [&](const DeviceInfo& d) { return d.index == o.device; });
    if (it == devs.end()) throw Error(fmt::format("cuda: no device {} ({} usable)", o.device, devs.size()));
    info_ = *it;
    std::uint64_t cap = o.budget_bytes;
    if (cap == 0) {
      if (info_.free_bytes <= o.margin)
        throw Error(fmt::format("cuda: device {} has only {} free", o.device,
                                mem::format_bytes(info_.free_bytes)));
      cap = info_.free_bytes - o.margin;
    }
    if (opts_.name.empty()) opts_.name = fmt::format("gpu{}", o.device);
    budget_ = std::make_unique<mem::MemoryBudget>(cap, opts_.name);
    use_device(o.device);
    pool_ = std::make_unique<DevicePool>(*budget_, o.device);
  }
  ~Gpu() {
    std::lock_guard lk(mu_);
    keys_.clear();
    ntts_.clear();
    pool_.reset();  // every block has died: the pool frees its cache before the budget dies
  }

  const GpuOptions& opts() const { return opts_; }
  const DeviceInfo& info() const { return info_; }
  DevicePool& pool() { return *pool_; }
  mem::MemoryBudget& budget() { return *budget_; }
  void enter() const { use_device(opts_.device); }
  // The device's compute, held for one stage's kernels when GpuOptions::serial_compute is on (an
  // empty lock otherwise).
  std::unique_lock<std::mutex> compute_turn() {
    if (!opts_.serial_compute) return {};
    return std::unique_lock(compute_mu_);
  }

  // The domain of size 2^log_n over E's Fr (twiddles made the first time).
  template <class E>
  std::shared_ptr<const FrNttOf<typename E::Fr>> ntt(unsigned log_n) {
    using Ntt = FrNttOf<typename E::Fr>;
    std::lock_guard lk(mu_);
    auto& p = ntts_[{E::kId, log_n}];
    if (!p) p = std::make_shared<const Ntt>(*pool_, log_n);
    return std::static_pointer_cast<const Ntt>(p);
  }

  // The resident points of `key` (uploading them the first time), or a streamed entry.
  template <class E>
  std::shared_ptr<ResidentKey<E>> resident(const pipeline::Key<E>& key, bool want_b2) {
    using G1 = typename E::G1;
    using G2 = typename E::G2;
    std::lock_guard lk(mu_);
    drop_dead_locked();
    const auto* pk = key.pk.get();
    auto it = keys_.find(pk);
    if (it != keys_.end()) {
      // Found by address: a live entry of this address is this key (dead ones were dropped above).
      auto rk = std::static_pointer_cast<ResidentKey<E>>(it->second);
      if (want_b2 && !rk->streamed && !rk->b2) upload_b2_locked(*rk, key);
      return rk;
    }
    auto rk = std::make_shared<ResidentKey<E>>();
    rk->owner = key.pk;
    // Its points: A, B1 (n_vars each), L (the private wires), H (the domain); B2's compact bases.
    const std::uint64_t private_vars = pk->n_vars - pk->n_public - 1;
    const std::uint64_t g1_pts = 2 * std::uint64_t(pk->n_vars) + private_vars + pk->domain_size;
    const std::uint64_t need = g1_pts * DeviceBases<G1>::kPointBytes +
                               key.g2.size() * DeviceBases<G2>::kPointBytes;
    const std::uint64_t work = std::uint64_t(std::max(1u, opts_.workers)) *
                               worker_bytes(pk->domain_size, pk->n_vars);
    std::uint64_t held = 0;
    for (const auto& [_, k] : keys_) held += k->bytes();
    const bool fits = held + need + work <= budget_->capacity();
    if (key.points_on_device()) {
      // Made here from their scalars: there are no host points to stream.
      const std::uint64_t least = std::uint64_t(std::max(1u, opts_.workers)) *
                                  worker_bytes_made_key(pk->domain_size, pk->n_vars);
      if (held + need + least > budget_->capacity())
        throw Error(fmt::format(
            "{}: the proving key's points are made on the device and need {} there, beside {} "
            "of other resident keys and {} of GPU work ({} workers), on a device budget of {}; "
            "a key of that size needs a larger device or its points on the host",
            opts_.name, mem::format_bytes(need), mem::format_bytes(held), mem::format_bytes(least),
            std::max(1u, opts_.workers), mem::format_bytes(budget_->capacity())));
      const auto& s = *key.points;
      const auto t0 = std::chrono::steady_clock::now();
      rk->a = std::make_unique<DeviceBases<G1>>(generator_multiples<G1>(*pool_, s.a));
      rk->b1 = std::make_unique<DeviceBases<G1>>(generator_multiples<G1>(*pool_, s.b));
      rk->l = std::make_unique<DeviceBases<G1>>(generator_multiples<G1>(*pool_, s.l));
      rk->h = std::make_unique<DeviceBases<G1>>(generator_multiples<G1>(*pool_, s.h));
      key_make_s_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (want_b2) upload_b2_locked(*rk, key);
      ++uploads_;
    } else if (opts_.never_resident || !fits) {
      rk->streamed = true;
      ++streamed_;
    } else {
      rk->a = std::make_unique<DeviceBases<G1>>(*pool_, pk->a.view());
      rk->b1 = std::make_unique<DeviceBases<G1>>(*pool_, pk->b1.view());
      rk->l = std::make_unique<DeviceBases<G1>>(*pool_, pk->c.view());
      rk->h = std::make_unique<DeviceBases<G1>>(*pool_, pk->h.view());
      if (want_b2) upload_b2_locked(*rk, key);
      ++uploads_;
    }
    keys_[pk] = rk;
    return rk;
  }

  // Drops the entry of the key at `pk` (every key and the twiddles when null).
  void evict(const void* pk) {
    std::lock_guard lk(mu_);
    if (pk == nullptr) {
      keys_.clear();
      ntts_.clear();  // the twiddles are booked under srs too
    } else
      keys_.erase(pk);
    pool_->trim();
  }

  GpuReport report() const {
    std::lock_guard lk(mu_);
    GpuReport r;
    r.device = info_.name;
    const auto b = budget_->books();
    r.budget_capacity = b.capacity;
    r.budget_used = b.used;
    r.budget_peak = b.peak;
    r.srs_bytes = b[mem::Tag::srs].bytes;
    for (const auto& [_, k] : keys_) {
      (k->streamed ? r.streamed_keys : r.resident_keys)++;
      r.key_bytes += k->bytes();
    }
    r.key_uploads = uploads_;
    r.key_make_s = key_make_s_;
    r.mallocs = pool_->mallocs();
    return r;
  }

 private:
  template <class E>
  void upload_b2_locked(ResidentKey<E>& rk, const pipeline::Key<E>& key) {
    using G2 = typename E::G2;
    if (key.points_on_device()) {
      const auto t0 = std::chrono::steady_clock::now();
      rk.b2 = std::make_unique<DeviceBases<G2>>(generator_multiples<G2>(*pool_, key.g2_scalars()));
      key_make_s_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    } else
      rk.b2 = std::make_unique<DeviceBases<G2>>(*pool_, std::span(key.g2.bases));
  }
  void drop_dead_locked() {
    for (auto it = keys_.begin(); it != keys_.end();)
      it = it->second->expired() ? keys_.erase(it) : std::next(it);
  }

  GpuOptions opts_;
  DeviceInfo info_;
  std::unique_ptr<mem::MemoryBudget> budget_;
  std::unique_ptr<DevicePool> pool_;
  mutable std::mutex mu_;
  std::mutex compute_mu_;  // compute_turn()
  std::map<std::pair<ec::CurveId, unsigned>, std::shared_ptr<const void>> ntts_;
  // Keyed by the ProvingKey's address; the entry knows its curve.
  std::map<const void*, std::shared_ptr<ResidentKeyBase>> keys_;
  std::size_t uploads_ = 0, streamed_ = 0;
  double key_make_s_ = 0;
};

namespace {

// Σ scalars·bases on the device: resident bases when there are, else uploaded for this MSM only.
template <class C>
typename C::Jacobian run_msm(Gpu& g, const DeviceBases<C>* resident,
                             util::PodSpan<typename C::Affine> host_bases, const void* d_scalars,
                             std::size_t n, CUstream_st* stream) {
  if (n == 0) return C::Jacobian::identity();
  if (resident) return msm<C>(g.pool(), *resident, d_scalars, n, ScalarForm::montgomery, {},
                              nullptr, stream);
  DeviceBases<C> tmp(g.pool(), host_bases.subspan(0, n));
  return msm<C>(g.pool(), tmp, d_scalars, n, ScalarForm::montgomery, {}, nullptr, stream);
}

template <class T>  // T: a curve's Fr, const or not
DeviceBlock upload(Gpu& g, std::span<T> v, CUstream_st* stream) {
  DeviceBlock d = g.pool().allocate(std::max<std::size_t>(v.size_bytes(), 1), mem::Tag::gpu);
  if (!v.empty()) copy_to_device(d.get(), v.data(), v.size_bytes(), stream);
  return d;
}

// Waits for a stream when it dies (errors ignored: the call is already ending with one).
class SyncAtExit {
 public:
  explicit SyncAtExit(const GpuStream& s) : s_(s) {}
  SyncAtExit(const SyncAtExit&) = delete;
  SyncAtExit& operator=(const SyncAtExit&) = delete;
  ~SyncAtExit() {
    try {
      s_.sync();
    } catch (...) {
    }
  }

 private:
  const GpuStream& s_;
};

// Host bytes a device stage may hold beside its inputs: the key upload's pinned staging
// (upload_staged) and the MSMs' small host vectors, rounded up.
constexpr std::uint64_t kHostStaging = kUploadStagingBytes + (std::uint64_t(4) << 20);

// Where the GPU stage's time goes, summed over its partitions (GpuStage::phase_report): the
// resident key and twiddles, the host-to-device copies, giving the host buffers back, the H step,
// the H MSM and the three MSMs over z. z is copied while the H step and the H MSM run: "upload z"
// is only what is left of its copy after them.
// "turn": the wait for the device's compute (GpuOptions::serial_compute; 0 when off).
enum class Phase : unsigned { key, upload_ab, free_host, turn, h, h_msm, upload_z, z_msms, count };
constexpr std::array<const char*, std::size_t(Phase::count)> kPhaseNames = {
    "key", "upload a,b", "free host", "turn", "H", "H MSM", "upload z", "A,B1,L MSMs"};
using PhaseTotals = util::PhaseTotals<Phase>;
using PhaseClock = util::PhaseClock<Phase>;

template <class E>
class CudaGpuStage final : public pipeline::GpuStage<E> {
 public:
  using Fr = typename E::Fr;
  using G1 = typename E::G1;

  explicit CudaGpuStage(std::shared_ptr<Gpu> g) : g_(std::move(g)) {}
  std::string name() const override { return "cuda"; }

  zk::G1Results<E> run(const pipeline::Key<E>& key, mem::Buffer<Fr> z, mem::Buffer<Fr> a,
                       mem::Buffer<Fr> b) override {
    const auto& pk = *key.pk;
    const std::size_t n = pk.domain_size;
    if (a.size() != n || b.size() != n)
      throw Error(fmt::format("cuda gpu stage: a, b have {}, {} values, the domain {}", a.size(),
                              b.size(), n));
    if (z.size() != pk.n_vars)
      throw Error(fmt::format("cuda gpu stage: the assignment has {} values, the key {} variables",
                              z.size(), pk.n_vars));
    if (!std::has_single_bit(n)) throw Error(fmt::format("cuda gpu stage: domain {} is not 2^k", n));
    PhaseClock clock(phases_);
    g_->enter();
    const auto rk = g_->resident(key, false);
    const auto ntt = g_->template ntt<E>(unsigned(std::countr_zero(n)));
    // st: the copies of a, b and every kernel; zst: z's copy, made while the H step runs. Their
    // priority: GpuStream::gpu_stage_priority().
    GpuStream st(GpuStream::gpu_stage_priority()), zst(GpuStream::gpu_stage_priority());
    DeviceBlock dz;
    const SyncAtExit z_copy(zst);  // z's copy ends before dz and z can die, however the call ends
    std::unique_lock<std::mutex> turn;  // the device's compute, from the H step on (serial_compute)
    zk::G1Results<E> out;
    clock.lap(Phase::key);
    {
      DeviceBlock da = upload(*g_, a.span(), st.get());
      DeviceBlock db = upload(*g_, b.span(), st.get());
      st.sync();
      dz = upload(*g_, z.span(), zst.get());  // after a, b: they do not share the link
      clock.lap(Phase::upload_ab);
      a.reset();  // on the device now: the host copies die
      b.reset();
      clock.lap(Phase::free_host);
      turn = g_->compute_turn();
      clock.lap(Phase::turn);
      // c = a∘b, which is C·z on every row for a satisfying assignment: the host never held it.
      DeviceBlock dc = g_->pool().allocate(n * sizeof(Fr), mem::Tag::gpu);
      ntt->product(da.as<Fr>(), db.as<Fr>(), dc.as<Fr>(), st.get());
      if (pk.h_basis == zk::HBasis::monomial)
        ntt->h_coefficients(da.as<Fr>(), db.as<Fr>(), dc.as<Fr>(), st.get());
      else
        ntt->ab_minus_c_on_odd_coset(da.as<Fr>(), db.as<Fr>(), dc.as<Fr>(), st.get());
      st.sync();
      db.reset();
      dc.reset();
      clock.lap(Phase::h);
      out.h = run_msm<G1>(*g_, rk->h.get(), pk.h.view(), da.get(), n, st.get());
      clock.lap(Phase::h_msm);
    }
    zst.sync();  // only the wait for z's copy is left, if any
    clock.lap(Phase::upload_z);
    z.reset();
    clock.lap(Phase::free_host);
    const std::size_t vars = pk.n_vars, first_private = std::size_t(pk.n_public) + 1;
    out.a = run_msm<G1>(*g_, rk->a.get(), pk.a.view(), dz.get(), vars, st.get());
    out.b1 = run_msm<G1>(*g_, rk->b1.get(), pk.b1.view(), dz.get(), vars, st.get());
    out.l = run_msm<G1>(*g_, rk->l.get(), pk.c.view(), dz.as<Fr>() + first_private,
                        vars - first_private, st.get());
    clock.lap(Phase::z_msms);
    clock.done();
    return out;
  }
  std::string phase_report() const override { return phases_.report(); }
  void reset_phase_report() override { phases_.reset(); }
  // The key's G1 points resident (uploaded or made here) and the domain's twiddles made.
  void prepare(const pipeline::Key<E>& key) override {
    g_->enter();
    g_->resident(key, false);
    g_->template ntt<E>(unsigned(std::countr_zero(key.pk->domain_size)));
  }
  // Host heap beyond the partition's buffers (which this stage frees once they are on the device):
  // no MSM scratch on the host, only the key upload's staging chunk (kHostStaging) and small
  // per-MSM vectors.
  std::uint64_t host_scratch_bytes(const pipeline::Key<E>&,
                                   const pipeline::PartitionCost&) const override {
    return kHostStaging;
  }

 private:
  std::shared_ptr<Gpu> g_;
  PhaseTotals phases_{kPhaseNames};
};

template <class E>
class CudaG2Stage final : public pipeline::G2Stage<E> {
 public:
  using Fr = typename E::Fr;

  explicit CudaG2Stage(std::shared_ptr<Gpu> g) : g_(std::move(g)) {}
  std::string name() const override { return "cuda"; }
  typename E::G2Jacobian run(const pipeline::Key<E>& key, std::span<const Fr> compact) override {
    if (compact.size() != key.g2.size())
      throw Error(fmt::format("cuda g2 stage: {} scalars for {} B2 bases", compact.size(),
                              key.g2.size()));
    if (compact.empty()) return E::G2Jacobian::identity();
    g_->enter();
    const auto rk = g_->resident(key, true);
    GpuStream st;
    DeviceBlock d = upload(*g_, compact, st.get());
    const auto turn = g_->compute_turn();
    return run_msm<typename E::G2>(*g_, rk->b2.get(), std::span(key.g2.bases), d.get(),
                                   compact.size(), st.get());
  }
  std::uint64_t host_scratch_bytes(const pipeline::Key<E>&,
                                   const pipeline::PartitionCost&) const override {
    return kHostStaging;
  }
  // B2's points resident (uploaded or made here).
  void prepare(const pipeline::Key<E>& key) override {
    if (key.g2.size() == 0) return;
    g_->enter();
    g_->resident(key, true);
  }

 private:
  std::shared_ptr<Gpu> g_;
};

// The Gpus of a request, opened once per process and shared by every engine's backend (both
// curves) while any holds them: keyed by (device, share, shares).
std::vector<std::shared_ptr<Gpu>> shared_gpus(const pipeline::BackendRequest& req, std::string* why) {
  static std::mutex mu;
  static std::map<std::tuple<int, unsigned, unsigned>, std::weak_ptr<Gpu>> open;
  static bool hooks = false;
  std::lock_guard lk(mu);
  std::string reason;
  const auto devs = list_devices(&reason);
  if (devs.empty()) {
    if (why) *why = reason;
    return {};
  }
  std::vector<int> want = req.devices;
  if (want.empty())
    for (const auto& d : devs) want.push_back(d.index);
  const unsigned n = req.logical_devices;
  std::vector<std::shared_ptr<Gpu>> out;
  try {
    for (int d : want) {
      const auto info = std::find_if(devs.begin(), devs.end(), [&](const DeviceInfo& x) { return x.index == d; });
      if (info == devs.end()) throw Error(fmt::format("cuda: no device {} ({} usable)", d, devs.size()));
      for (unsigned i = 0; i < n; ++i) {
        auto& w = open[{d, i, n}];
        if (auto g = w.lock()) {
          out.push_back(std::move(g));
          continue;
        }
        GpuOptions o;
        o.device = d;
        if (n > 1) {
          // An equal share of what is free now (less the margin once, for the context).
          const auto free = info->free_bytes;
          if (free <= o.margin)
            throw Error(fmt::format("cuda: device {} has only {} free", d, mem::format_bytes(free)));
          o.budget_bytes = (free - o.margin) / n;
          o.name = fmt::format("gpu{}.{}", d, i);
        }
        auto g = open_gpu(o);
        w = g;
        out.push_back(std::move(g));
      }
    }
  } catch (const Error& e) {
    if (why) *why = e.what();
    return {};
  }
  if (!hooks) {
    // Buffers made with BufferOptions::pin (the pipeline's partition buffers when this backend
    // runs) are page-locked from now on: the stages' copies then go by DMA.
    mem::set_pin_hooks({[](void* p, std::size_t k) { pin_host(p, k); },
                        [](void* p, std::size_t k) { unpin_host(p, k); }});
    hooks = true;
  }
  return out;
}

template <class E>
void install_for() {
  pipeline::register_device_backend<E>(
      "cuda", [](const pipeline::BackendRequest& req,
                 std::string* why) -> std::optional<pipeline::Backend<E>> {
        auto gpus = shared_gpus(req, why);
        if (gpus.empty()) return std::nullopt;
        pipeline::Backend<E> b;
        b.name = "cuda";
        std::vector<std::pair<std::weak_ptr<Gpu>, std::shared_ptr<pipeline::DeviceState>>> states;
        for (const auto& g : gpus) {
          pipeline::DeviceStages<E> s;
          s.gpu = gpu_stage<E>(g);
          s.g2_on_device = req.g2_on != "cpu";
          s.g2 = s.g2_on_device ? g2_stage<E>(g) : pipeline::cpu_g2_stage<E>();
          s.state = pipeline::device_state(g->opts().name);
          states.emplace_back(g, s.state);
          b.stages.push_back(std::move(s));
          b.detail += fmt::format("{}{}: {} (device budget {})", b.detail.empty() ? "" : "; ",
                                  g->opts().name, g->info().name,
                                  mem::format_bytes(g->budget().capacity()));
        }
        // The driver's view once per physical device; the books once per Gpu.
        std::vector<int> seen;
        for (const auto& g : gpus) {
          const bool first = std::find(seen.begin(), seen.end(), g->opts().device) == seen.end();
          if (first) seen.push_back(g->opts().device);
          for (auto& src : memory_sources(g))
            if (first || src.first.ends_with("_books")) b.device_sources.push_back(std::move(src));
        }
        b.devices = [states] {
          std::vector<pipeline::DeviceStatus> out;
          const auto listed = list_devices();
          for (const auto& [w, state] : states) {
            const auto g = w.lock();
            if (!g) continue;
            const GpuReport r = report(*g);
            pipeline::DeviceStatus d = pipeline::device_status(*state);
            d.index = unsigned(g->opts().device);
            d.name = r.device;
            for (const auto& i : listed)
              if (i.index == g->opts().device) {
                d.total_bytes = i.total_bytes;
                d.free_bytes = i.free_bytes;
              }
            d.budget_capacity = r.budget_capacity;
            d.budget_used = r.budget_used;
            d.budget_peak = r.budget_peak;
            d.key_bytes = r.key_bytes;
            d.resident_keys = r.resident_keys;
            d.key_make_s = r.key_make_s;
            out.push_back(std::move(d));
          }
          return out;
        };
        b.pin_host_buffers = true;
        return b;
      });
}

}  // namespace

bool GpuOptions::serial_compute_from_env() {
  static const bool on = util::env_flag("SPLITPROVE_GPU_SERIAL");
  return on;
}

std::shared_ptr<Gpu> open_gpu(const GpuOptions& opts) { return std::make_shared<Gpu>(opts); }

template <class E>
std::shared_ptr<pipeline::GpuStage<E>> gpu_stage(std::shared_ptr<Gpu> gpu) {
  return std::make_shared<CudaGpuStage<E>>(std::move(gpu));
}
template <class E>
std::shared_ptr<pipeline::G2Stage<E>> g2_stage(std::shared_ptr<Gpu> gpu) {
  return std::make_shared<CudaG2Stage<E>>(std::move(gpu));
}
template <class E>
void evict(Gpu& gpu, const zk::ProvingKey<E>* pk) {
  if (pk) gpu.evict(pk);
}
void evict(Gpu& gpu) { gpu.evict(nullptr); }

#define SPLITPROVE_CUDA_STAGE_INSTANTIATE(E)                                           \
  template std::shared_ptr<pipeline::GpuStage<E>> gpu_stage<E>(std::shared_ptr<Gpu>); \
  template std::shared_ptr<pipeline::G2Stage<E>> g2_stage<E>(std::shared_ptr<Gpu>);   \
  template void evict<E>(Gpu&, const zk::ProvingKey<E>*);
SPLITPROVE_FOR_EACH_ENGINE(SPLITPROVE_CUDA_STAGE_INSTANTIATE)
#undef SPLITPROVE_CUDA_STAGE_INSTANTIATE

GpuReport report(const Gpu& gpu) { return gpu.report(); }

std::vector<std::pair<std::string, mem::DeviceMemorySource>> memory_sources(
    std::shared_ptr<Gpu> gpu) {
  const int dev = gpu->opts().device;
  std::vector<std::pair<std::string, mem::DeviceMemorySource>> v;
  v.emplace_back(fmt::format("gpu{}", dev), [dev]() -> std::optional<std::uint64_t> {
    const long long used = device_used_bytes(dev);
    if (used < 0) return std::nullopt;
    return std::uint64_t(used);
  });
  std::weak_ptr<Gpu> w = gpu;
  v.emplace_back(fmt::format("{}_books", gpu->opts().name), [w]() -> std::optional<std::uint64_t> {
    auto g = w.lock();
    if (!g) return std::nullopt;
    return g->budget().books().used;
  });
  return v;
}

void install_pipeline_backend() {
#define SPLITPROVE_CUDA_INSTALL(E) install_for<E>();
  SPLITPROVE_FOR_EACH_ENGINE(SPLITPROVE_CUDA_INSTALL)
#undef SPLITPROVE_CUDA_INSTALL
}

}  // namespace splitprove::cuda

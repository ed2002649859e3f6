#include "service/daemon.hpp"

#include <openssl/evp.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "circuit/porep.hpp"
#include "circuit/r1cs.hpp"
#include "ec/curves.hpp"
#include "io/curve_id.hpp"
#include "io/json.hpp"
#include "io/wtns.hpp"
#include "io/zkey.hpp"
#include "mem/plot.hpp"
#include "mem/verdict.hpp"
#include "pipeline/backend.hpp"
#include "pipeline/circom_source.hpp"
#include "pipeline/engine.hpp"
#include "service/errors.hpp"
#include "service/log.hpp"
#include "util/limits.hpp"
#include "zk/setup.hpp"

namespace splitprove::service {
namespace fs = std::filesystem;

std::string sha256_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: cannot open the file", path));
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  if (!ctx || EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr) != 1) {
    EVP_MD_CTX_free(ctx);
    throw Error("sha256: cannot initialise OpenSSL's digest");
  }
  std::vector<char> buf(std::size_t(1) << 20);
  while (in) {
    in.read(buf.data(), std::streamsize(buf.size()));
    if (in.gcount() > 0) EVP_DigestUpdate(ctx, buf.data(), std::size_t(in.gcount()));
  }
  const bool bad = in.bad();
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_DigestFinal_ex(ctx, md, &len);
  EVP_MD_CTX_free(ctx);
  if (bad) throw Error(fmt::format("{}: read error", path));
  std::string hex;
  for (unsigned i = 0; i < len; ++i) hex += fmt::format("{:02x}", md[i]);
  return hex;
}

void DaemonConfig::check() const {
  if (store.state_dir.empty()) throw Error("serve: no state directory (--state-dir)");
  if (key_dir.empty()) throw Error("serve: no key directory (--key-dir)");
  const auto threads = util::max_threads();
  if (synthesis_workers == 0 || synthesis_workers > threads)
    throw Error(fmt::format("serve: synthesis workers {}: 1..{} on this machine", synthesis_workers, threads));
  if (gpu_workers == 0 || gpu_workers > 64)
    throw Error(fmt::format("serve: GPU workers {}: 1..64", gpu_workers));
  if (window > 4096) throw Error(fmt::format("serve: window {}: at most 4096", window));
  if (max_pending_jobs == 0 || max_pending_jobs > 1'000'000)
    throw Error(fmt::format("serve: max_pending_jobs {}: 1..1000000", max_pending_jobs));
  if (max_partitions_per_job == 0 || max_partitions_per_job > 65536)
    throw Error(fmt::format("serve: max_partitions_per_job {}: 1..65536", max_partitions_per_job));
  if (store.max_attempts == 0 || store.max_attempts > 100)
    throw Error(fmt::format("serve: max_attempts {}: 1..100", store.max_attempts));
  if (gc_interval_s == 0) throw Error("serve: gc_interval_s must be at least 1");
}

// ---------------------------------------------------------------- keys and engines

struct Daemon::Loaded {
  KeyRecord rec;
  ec::CurveId curve{};
  std::uint64_t host_bytes = 0;
  std::shared_ptr<const zk::ProvingKey<ec::Bls12_381>> pk_bls;
  std::shared_ptr<const pipeline::Key<ec::Bls12_381>> key_bls;
  std::shared_ptr<const zk::ProvingKey<ec::Bn254>> pk_bn;
  std::shared_ptr<const pipeline::Key<ec::Bn254>> key_bn;
  mem::Reservation booked;  // host_bytes under tag srs in its curve's engine budget
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

namespace {

// Partition p of a source as an engine job of one partition (the engine proves 0..n-1).
template <class Fr>
class OnePartition final : public circuit::PartitionSource<Fr> {
 public:
  OnePartition(std::shared_ptr<const circuit::PartitionSource<Fr>> src, std::size_t p) : src_(std::move(src)), p_(p) {}
  circuit::Shape shape() const override { return src_->shape(); }
  std::string describe() const override { return fmt::format("{} partition {}", src_->describe(), p_); }
  void synthesize(std::size_t, std::span<Fr> z, std::span<Fr> a, std::span<Fr> b, std::span<Fr> c,
                  const std::stop_token& stop) const override {
    src_->synthesize(p_, z, a, b, c, stop);
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

}  // namespace

struct Daemon::Engines {
  Engines(const DaemonConfig& c, std::function<void(int, std::uint64_t, std::string_view, bool)> obs)
      : cfg(c), observer(std::move(obs)) {}
  DaemonConfig cfg;
  std::function<void(int, std::uint64_t, std::string_view, bool)> observer;
  std::mutex mu;
  std::unique_ptr<pipeline::Engine<ec::Bls12_381>> bls;
  std::unique_ptr<pipeline::Engine<ec::Bn254>> bn;
  std::string backend;

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
      pipeline::BackendRequest req;
      req.backend = cfg.backend;
      auto b = pipeline::make_backend<E>(req);
      ec.pin_buffers_for(b.pin_host_buffers);
      ec.check();
      backend = b.describe();
      slot = std::make_unique<pipeline::Engine<E>>(ec, b.gpu, b.g2);
      slot->set_stage_observer([obs = observer](std::uint64_t job, std::size_t, std::string_view stage,
                                                bool start) { obs(int(E::kId), job, stage, start); });
    }
    return *slot;
  }
  void shutdown() {
    std::lock_guard lk(mu);
    if (bls) bls->shutdown();
    if (bn) bn->shutdown();
  }
  void books(DaemonStatus& s) {
    std::lock_guard lk(mu);
    auto add = [&](auto& e) {
      if (!e) return;
      const auto b = e->budget().books();
      if (cfg.budget) s.budget_total += b.capacity;  // 0: no cap
      s.budget_used += b.used;
      s.budget_peak += b.peak;
      for (std::size_t t = 0; t < b.tags.size(); ++t)
        if (b.tags[t].bytes) s.budget_by_tag[std::string(mem::tag_name(mem::Tag(t)))] += b.tags[t].bytes;
    };
    add(bls);
    add(bn);
    s.backend = backend.empty() ? cfg.backend : backend;
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

namespace {
std::string owner_name() {
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  return fmt::format("{}:{}:{}", host, ::getpid(), now_ms());
}
}  // namespace

Daemon::Daemon(DaemonConfig cfg) : cfg_(std::move(cfg)) {
  cfg_.check();
  // Enough claims to fill every slot of the pipeline (pw synthesis, the GPU queue, gw GPU workers,
  // the G2 backlog and worker, the finalize backlog and finalizer) with two more reading inputs.
  if (cfg_.window == 0) cfg_.window = cfg_.synthesis_workers + cfg_.gpu_workers + 7;
  std::error_code ec;
  if (!fs::is_directory(cfg_.key_dir, ec))
    throw Error(fmt::format("serve: key directory {}: not a directory", cfg_.key_dir));
  store_ = open_sqlite_store(cfg_.store);
  recovery_ = store_->recover();
  owner_ = owner_name();
  started_at_ = now_ms();
  {
    mem::SamplerOptions so;
    so.interval = std::chrono::milliseconds(1000);
    so.split_anon_file = false;
    so.max_samples = 4096;
    so.max_events = 1024;
    sampler_ = std::make_unique<mem::MemorySampler>(nullptr, so);
    sampler_->start();
  }
  metrics_ = std::make_shared<prometheus::Registry>();
  hist_ = std::make_unique<Histograms>(*metrics_);
  hist_->done = &hist_->partition.Add({}, Histograms::buckets());
  engines_ = std::make_unique<Engines>(
      cfg_, [this](int curve, std::uint64_t job, std::string_view stage, bool start) {
        on_stage(curve, job, stage, start);
      });
  for (std::uint32_t i = 0; i < cfg_.window; ++i) threads_.emplace_back([this] { driver(); });
  threads_.emplace_back([this] { collector(); });
  accepting_ = true;
}

Daemon::~Daemon() { stop(std::chrono::milliseconds(0)); }

void Daemon::changed(const std::string& job_id) {
  {
    std::lock_guard lk(change_mu_);
    ++change_seq_;
    if (job_id.empty()) {
      for (auto& [j, n] : job_changes_) n = change_seq_;
    } else {
      job_changes_[job_id] = change_seq_;
    }
  }
  change_cv_.notify_all();
}

void Daemon::job_ended(const std::string& job_id) {
  {
    std::lock_guard lk(change_mu_);
    job_changes_.erase(job_id);
  }
  change_cv_.notify_all();
}

std::uint64_t Daemon::job_changes(const std::string& job_id) {
  std::lock_guard lk(change_mu_);
  const auto it = job_changes_.find(job_id);
  return it == job_changes_.end() ? 0 : it->second;
}

std::uint64_t Daemon::wait_job_change(const std::string& job_id, std::uint64_t seen,
                                      std::chrono::milliseconds timeout) {
  std::unique_lock lk(change_mu_);
  auto now = [&] {
    const auto it = job_changes_.find(job_id);
    return it == job_changes_.end() ? 0 : it->second;
  };
  change_cv_.wait_for(lk, timeout, [&] { return now() != seen || !accepting_.load(); });
  return now();
}

std::shared_ptr<Daemon::Loaded> Daemon::load(const std::string& key_id) {
  std::lock_guard lk(keys_mu_);
  if (auto it = keys_.find(key_id); it != keys_.end()) return it->second;
  auto rec = store_->get_key(key_id);
  if (!rec) throw NotFound(fmt::format("no key {} is registered", key_id));
  const std::string path = (fs::path(cfg_.key_dir) / rec->zkey_path).string();
  auto l = std::make_shared<Loaded>();
  l->rec = *rec;
  l->curve = io::detect_curve(path);
  ec::with_engine(l->curve, [&](auto e) {
    using E = decltype(e);
    io::ZkeyReadOptions ro;
    ro.check_subgroup = false;  // every proof is verified before it is committed
    auto pk = std::make_shared<const zk::ProvingKey<E>>(io::read_zkey<E>(path, ro));
    l->key<E>() = pipeline::Key<E>::prepare(pk);
    l->pk<E>() = std::move(pk);
    if (rec->native_log2) l->cs<E>() = record_native<typename E::Fr>(*rec->native_log2);
  });
  l->host_bytes = rec->file_bytes;
  // The key is booked in its engine's budget (tag srs) for as long as it is resident, so the
  // budget bounds keys and work together.
  ec::with_engine(l->curve, [&](auto e) {
    using E = decltype(e);
    auto& budget = engines_->get<E>().budget();
    std::optional<mem::Reservation> r;
    try {
      r = budget.try_reserve(l->host_bytes, mem::Tag::srs);
    } catch (const mem::BudgetError&) {
    }
    if (!r) {
      const auto b = budget.books();
      throw Exhausted(fmt::format("key {} needs {} bytes resident; the {} budget holds {} of {} now: "
                                  "evict a key or raise --budget",
                                  key_id, l->host_bytes, ec::curve_name(l->curve), b.used, b.capacity));
    }
    l->booked = std::move(*r);
  });
  keys_[key_id] = l;
  return l;
}

KeyInfo Daemon::info_of(const KeyRecord& k) {
  KeyInfo i;
  i.record = k;
  {
    std::lock_guard lk(keys_mu_);
    if (auto it = keys_.find(k.key_id); it != keys_.end()) {
      i.resident = true;
      i.host_bytes = it->second->host_bytes;
    }
    if (auto it = last_used_.find(k.key_id); it != last_used_.end()) i.last_used_at = it->second;
  }
  return i;
}

std::pair<KeyInfo, bool> Daemon::register_key(const std::string& rel, bool preload) {
  if (rel.empty()) throw Error("RegisterKey: an empty path");
  const fs::path p(rel);
  if (p.is_absolute()) throw Denied(fmt::format("key path '{}' is absolute: give it relative to the key directory", rel));
  for (const auto& part : p)
    if (part == "..") throw Denied(fmt::format("key path '{}' contains '..'", rel));
  std::error_code ec;
  const fs::path dir = fs::canonical(cfg_.key_dir, ec);
  const fs::path full = fs::path(cfg_.key_dir) / p;
  if (!fs::exists(full, ec)) throw NotFound(fmt::format("key path '{}': no such file in the key directory", rel));
  const fs::path real = fs::canonical(full, ec);
  if (ec) throw NotFound(fmt::format("key path '{}': {}", rel, ec.message()));
  const auto rs = real.string(), ds = dir.string() + "/";
  if (rs.compare(0, ds.size(), ds) != 0)
    throw Denied(fmt::format("key path '{}' resolves outside the key directory (to {})", rel, rs));
  if (!fs::is_regular_file(real)) throw Error(fmt::format("key path '{}': not a regular file", rel));
  const std::string id = sha256_file(rs);
  if (auto known = store_->get_key(id)) {
    if (preload) load(id);
    return {info_of(*known), true};
  }
  // Read it once to check it (and learn its shape); keep it when asked to preload.
  KeyRecord k;
  k.key_id = id;
  k.zkey_path = fs::relative(real, dir).string();
  k.file_bytes = fs::file_size(real);
  k.registered_at = now_ms();
  const ec::CurveId curve = io::detect_curve(rs);
  k.curve = std::string(ec::curve_name(curve));
  ec::with_engine(curve, [&](auto e) {
    using E = decltype(e);
    io::ZkeyReadOptions ro;
    ro.check_subgroup = false;
    const auto pk = io::read_zkey<E>(rs, ro);
    k.variables = pk.n_vars;
    k.public_signals = pk.n_public;
    std::uint32_t log2 = 0;
    while ((std::uint64_t(1) << log2) < pk.domain_size) ++log2;
    k.log2_domain = log2;
    k.constraints = pk.domain_size;  // the domain bounds the constraints (+ public inputs)
  });
  store_->put_key(k);
  if (preload) load(id);
  return {info_of(*store_->get_key(id)), false};
}

std::pair<KeyInfo, bool> Daemon::register_native_key(const std::string& curve_name, std::uint32_t log2,
                                                    bool preload) {
  if (log2 < 10 || log2 > 28) throw Error(fmt::format("native circuit of 2^{} rows: 2^10..2^28", log2));
  ec::CurveId curve;
  if (curve_name == ec::curve_name(ec::CurveId::kBn254)) curve = ec::CurveId::kBn254;
  else if (curve_name == ec::curve_name(ec::CurveId::kBls12_381)) curve = ec::CurveId::kBls12_381;
  else throw Error(fmt::format("unknown curve '{}' (BN254 or BLS12-381)", curve_name));
  std::lock_guard lk(native_mu_);  // one native setup at a time
  if (auto known = store_->get_native_key(curve_name, log2)) {
    if (preload) load(known->key_id);
    return {info_of(*known), true};
  }
  const std::string rel = fmt::format("native/{}-2^{}.zkey", curve_name == "BN254" ? "bn254" : "bls12-381", log2);
  const fs::path path = fs::path(cfg_.key_dir) / rel;
  fs::create_directories(path.parent_path());
  KeyRecord k;
  ec::with_engine(curve, [&](auto e) {
    using E = decltype(e);
    const auto cs = record_native<typename E::Fr>(log2);
    const auto pk = zk::dev_setup<E>(circuit::to_r1cs<E>(*cs));
    io::write_zkey<E>(path.string(), pk);  // atomically (util::AtomicFile)
    k.variables = pk.n_vars;
    k.public_signals = pk.n_public;
    k.constraints = pk.domain_size;
    std::uint32_t d = 0;
    while ((std::uint64_t(1) << d) < pk.domain_size) ++d;
    k.log2_domain = d;
  });
  k.key_id = sha256_file(path.string());
  k.zkey_path = rel;
  k.curve = curve_name;
  k.file_bytes = fs::file_size(path);
  k.registered_at = now_ms();
  k.native_log2 = log2;
  store_->put_key(k);
  log_event(spdlog::level::info, "native_key_made",
            {{"curve", curve_name}, {"log2", std::to_string(log2)}, {"key", k.key_id}});
  if (preload) load(k.key_id);
  return {info_of(*store_->get_key(k.key_id)), false};
}

std::vector<KeyInfo> Daemon::list_keys() {
  std::vector<KeyInfo> out;
  for (const auto& k : store_->list_keys()) out.push_back(info_of(k));
  return out;
}

KeyInfo Daemon::preload_key(const std::string& key_id) {
  auto rec = store_->get_key(key_id);
  if (!rec) throw NotFound(fmt::format("no key {} is registered", key_id));
  load(key_id);
  return info_of(*rec);
}

std::pair<KeyInfo, std::uint64_t> Daemon::evict_key(const std::string& key_id) {
  auto rec = store_->get_key(key_id);
  if (!rec) throw NotFound(fmt::format("no key {} is registered", key_id));
  std::uint32_t users = 0;
  {
    std::lock_guard lk(mu_);
    for (const auto& [k, r] : running_) users += r.claim.key_id == key_id;
  }
  if (users)
    throw Conflict(fmt::format("key {} is used by {} partitions in flight: retry when they are done",
                               key_id, users));
  std::uint64_t freed = 0;
  {
    std::lock_guard lk(keys_mu_);
    if (auto it = keys_.find(key_id); it != keys_.end()) {
      freed = it->second->host_bytes;
      keys_.erase(it);
    }
  }
  return {info_of(*rec), freed};
}

// ---------------------------------------------------------------- submit

class SubmissionImpl final : public Submission {
 public:
  SubmissionImpl(Daemon& d, std::shared_ptr<Daemon::Loaded> key, std::unique_ptr<InputWriter> w,
                 std::uint64_t reserved)
      : d_(d), key_(std::move(key)), w_(std::move(w)), reserved_(reserved) {}
  ~SubmissionImpl() override {
    w_.reset();  // uncommitted: its files go
    std::lock_guard lk(d_.mu_);
    --d_.submits_in_progress_;
    d_.reserved_spool_ -= reserved_;
  }
  void append(std::uint32_t partition, std::uint64_t offset,
              std::span<const std::uint8_t> bytes) override {
    w_->append(partition, offset, bytes);
    // A partition that just landed is checked against the key (field, variable count) now, so a
    // wrong witness is refused before the rest is streamed.
    while (checked_ < w_->landed()) check(checked_++);
  }
  std::pair<JobRecord, bool> commit() override { return w_->commit(); }

 private:
  void check(std::uint32_t p) {
    const std::string path = w_->path_of(p);
    try {
      const ec::CurveId c = io::detect_curve(path);
      if (c != key_->curve)
        throw Error(fmt::format("the witness is for {} but key {} is for {}", ec::curve_name(c),
                                key_->rec.key_id, ec::curve_name(key_->curve)));
      ec::with_engine(c, [&](auto e) {
        using E = decltype(e);
        const auto w = io::read_wtns<E>(path);
        io::check_witness_length(w, key_->rec.variables, "key " + key_->rec.key_id, "proving key");
      });
    } catch (const Error& e) {
      std::string msg = e.what();
      // The spool path means nothing to the client: name the partition instead.
      if (auto pos = msg.find(path); pos != std::string::npos) msg.replace(pos, path.size(), "witness");
      throw Error(fmt::format("partition {}: {}", p, msg));
    }
  }

  Daemon& d_;
  std::shared_ptr<Daemon::Loaded> key_;
  std::unique_ptr<InputWriter> w_;
  std::uint64_t reserved_;
  std::uint32_t checked_ = 0;
};

Daemon::Begin Daemon::begin_submit(const SubmitHeader& h) {
  if (!accepting_) throw Unavailable("the daemon is not accepting jobs (starting or stopping): retry");
  if (h.key_id.size() != 64) throw Error(fmt::format("key id '{}' is not 64 hex characters", h.key_id));
  if (h.idempotency_key.size() > 128)
    throw Error(fmt::format("idempotency key of {} characters: at most 128", h.idempotency_key.size()));
  for (char c : h.idempotency_key)
    if (c < 0x20 || c > 0x7e) throw Error("idempotency key: only printable ASCII characters");
  if (h.priority < -1000 || h.priority > 1000)
    throw Error(fmt::format("priority {}: -1000..1000", h.priority));
  const std::size_t n = h.partitions;
  if (n == 0) throw Error("a job needs at least one partition");
  if (n > cfg_.max_partitions_per_job)
    throw Error(fmt::format("{} partitions: at most max_partitions_per_job {}", n, cfg_.max_partitions_per_job));
  if (!h.native_seed && h.witness_bytes.size() != n)
    throw Error(fmt::format("{} partitions but {} witness sizes", n, h.witness_bytes.size()));
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < h.witness_bytes.size(); ++i) {
    if (h.witness_bytes[i] < 12 || h.witness_bytes[i] > cfg_.max_witness_bytes)
      throw Error(fmt::format("partition {}: a witness of {} bytes: 12..{} (max_witness_bytes)", i,
                              h.witness_bytes[i], cfg_.max_witness_bytes));
    total += h.witness_bytes[i];
  }
  std::string fp = fmt::format("key={};priority={};partitions={};", h.key_id, h.priority, n);
  if (h.native_seed) fp += fmt::format("native_seed={}", *h.native_seed);
  else for (auto b : h.witness_bytes) fp += fmt::format("{},", b);
  if (!h.idempotency_key.empty()) {
    if (auto j = store_->find_idempotent(h.idempotency_key)) {
      if (j->fingerprint != fp)
        throw Conflict(fmt::format("idempotency key '{}' names job {}, submitted with another header "
                                   "(key, priority or witness sizes differ)",
                                   h.idempotency_key, j->job_id));
      return {nullptr, j};
    }
  }
  auto rec = store_->get_key(h.key_id);
  if (!rec) throw NotFound(fmt::format("no key {} is registered", h.key_id));
  if (h.native_seed && !rec->native_log2)
    throw Error(fmt::format("key {} was registered from {}: its jobs are circom witnesses, not native partitions",
                            h.key_id, rec->zkey_path));
  if (!h.native_seed && rec->native_log2)
    throw Error(fmt::format("key {} is the native circuit's (2^{}): its jobs are native partitions, not witnesses",
                            h.key_id, *rec->native_log2));
  if (h.native_seed && h.native_log2 && h.native_log2 != *rec->native_log2)
    throw Error(fmt::format("native log2_size {} but key {} is of 2^{}", h.native_log2, h.key_id, *rec->native_log2));
  auto key = load(h.key_id);
  {
    std::lock_guard lk(mu_);
    const auto c = store_->counts();
    const std::uint64_t pending = std::uint64_t(c.queued_jobs) + c.running_jobs + submits_in_progress_;
    if (pending >= cfg_.max_pending_jobs)
      throw Exhausted(fmt::format("pending jobs: {} of max_pending_jobs {}", pending, cfg_.max_pending_jobs));
    if (c.spool_bytes + reserved_spool_ + total > cfg_.max_spool_bytes)
      throw Exhausted(fmt::format("spool: {} bytes held and {} reserved; this job's {} would pass "
                                  "max_spool_bytes {}",
                                  c.spool_bytes, reserved_spool_, total, cfg_.max_spool_bytes));
    ++submits_in_progress_;
    reserved_spool_ += total;
  }
  NewJob job;
  job.key_id = h.key_id;
  if (!h.idempotency_key.empty()) job.idempotency_key = h.idempotency_key;
  job.fingerprint = fp;
  job.priority = h.priority;
  job.partitions = std::uint32_t(n);
  job.witness_bytes = h.witness_bytes;
  job.native_seed = h.native_seed;
  std::unique_ptr<InputWriter> w;
  try {
    w = store_->create_job(job);
  } catch (...) {
    std::lock_guard lk(mu_);
    --submits_in_progress_;
    reserved_spool_ -= total;
    throw;
  }
  return {std::make_unique<SubmissionImpl>(*this, key, std::move(w), total), std::nullopt};
}

// ---------------------------------------------------------------- jobs

JobRecord Daemon::cancel(const std::string& job_id, const std::string& reason) {
  const auto before = store_->get_job(job_id, false, false);
  auto j = store_->cancel_job(job_id, reason);
  if (!j) throw NotFound(fmt::format("no job {}", job_id));
  if (before && before->state != JobState::cancelled) {
    std::lock_guard lk(mu_);
    ++jobs_cancelled_;
  }
  std::vector<std::function<void()>> cancels;
  {
    std::lock_guard lk(mu_);
    for (auto& [k, r] : running_)
      if (k.first == job_id && !r.cancelled) {
        r.cancelled = true;
        if (r.cancel) cancels.push_back(r.cancel);
      }
  }
  for (auto& c : cancels) c();
  changed(job_id);
  job_ended(job_id);
  log_event(spdlog::level::info, "job_cancelled", {{"job", job_id}, {"reason", reason}});
  return *j;
}

std::optional<JobRecord> Daemon::get_job(const std::string& job_id, bool with_results) {
  return store_->get_job(job_id, true, with_results);
}

JobPage Daemon::list_jobs(std::optional<JobState> state, std::size_t page_size,
                          const std::string& token) {
  return store_->list_jobs(state, page_size, token);
}

void Daemon::on_stage(int curve, std::uint64_t engine_job, std::string_view stage, bool start) {
  const Millis t = now_ms();
  if (!start) {
    // A partition is reported in the stage it last started until it starts the next; the stage's
    // time goes to its histogram.
    Millis since = -1;
    {
      std::lock_guard lk(mu_);
      if (auto it = engine_stage_.find({curve, engine_job}); it != engine_stage_.end() && it->second.first == stage)
        since = it->second.second;
    }
    if (since >= 0) hist_->of(stage).Observe(double(t - since) / 1000.0);
    return;
  }
  std::string job_id;
  {
    std::lock_guard lk(mu_);
    engine_stage_[{curve, engine_job}] = {std::string(stage), t};
    for (const auto& [k, r] : running_)
      if (r.curve == curve && r.engine_job == engine_job) job_id = k.first;
  }
  if (!job_id.empty()) changed(job_id);
}

std::map<std::uint32_t, Daemon::RunningInfo> Daemon::running_partitions(const std::string& job_id) {
  std::map<std::uint32_t, RunningInfo> out;
  std::lock_guard lk(mu_);
  for (const auto& [k, r] : running_)
    if (k.first == job_id) {
      RunningInfo& i = out[k.second];
      i.since = r.since;
      if (r.engine_job)
        if (auto it = engine_stage_.find({r.curve, r.engine_job}); it != engine_stage_.end()) {
          i.stage = it->second.first;
          i.stage_since = it->second.second;
        }
    }
  return out;
}

DaemonStatus Daemon::status() {
  DaemonStatus s;
  s.accepting = accepting_;
  s.started_at = started_at_;
  s.counts = store_->counts();
  engines_->books(s);
  {
    std::lock_guard lk(mu_);
    s.in_flight = std::uint32_t(running_.size());
    s.window = cfg_.window;
    s.jobs_succeeded = jobs_succeeded_;
    s.jobs_failed = jobs_failed_;
    s.jobs_cancelled = jobs_cancelled_;
    s.partitions_done = partitions_done_;
    for (const auto& [k, r] : running_) {
      std::string stage;
      if (auto it = engine_stage_.find({r.curve, r.engine_job}); r.engine_job && it != engine_stage_.end())
        stage = it->second.first;
      s.partitions.push_back({k.first, k.second, r.claim.attempt, r.since, stage});
    }
  }
  try {
    const auto tl = sampler_->timeline();
    const auto v = mem::analyze(tl);
    s.memory.verdict = std::string(mem::verdict_name(v.verdict));
    s.memory.text = v.reason;
    s.memory.rss = tl.samples.empty() ? 0 : tl.samples.back().rss;
    s.memory.baseline = v.baseline;
    s.memory.peak = v.peak;
    s.memory.peak_at = started_at_ + Millis(v.peak_t * 1000);
    s.memory.expected_peak = v.expected_peak.value_or(0);
    s.memory.unaccounted_at_peak = v.unaccounted_at_peak;
    s.memory.samples = v.samples;
  } catch (const Error& e) {
    s.memory.text = e.what();
  }
  std::sort(s.partitions.begin(), s.partitions.end(),
            [](const auto& a, const auto& b) { return a.since < b.since; });
  for (const auto& k : list_keys())
    if (k.resident) s.resident_keys.push_back(k);
  return s;
}

// ---------------------------------------------------------------- drivers

void Daemon::driver() {
  for (;;) {
    std::vector<Claim> claims;
    {
      std::unique_lock lk(mu_);
      if (stopping_) return;
    }
    try {
      claims = store_->next_partitions(1, owner_);
    } catch (const std::exception& e) {
      log_event(spdlog::level::err, "claim_failed", {{"error", e.what()}});
    }
    if (claims.empty()) {
      std::unique_lock lk(mu_);
      work_cv_.wait_for(lk, std::chrono::milliseconds(200), [&] { return stopping_; });
      continue;
    }
    run_partition(claims.front());
  }
}

void Daemon::run_partition(const Claim& c) {
  const auto key = std::make_pair(c.job_id, c.index);
  {
    std::lock_guard lk(mu_);
    if (stopping_) {
      store_->release(c);
      return;
    }
    running_[key] = Running{c, now_ms(), nullptr, false};
  }
  changed(c.job_id);
  const Millis started = now_ms();
  auto finish = [&](const char* what, const std::string& detail) {
    log_event(detail.empty() || std::string_view(what) == "partition_done" ? spdlog::level::info : spdlog::level::warn,
              what,
              {{"job", c.job_id}, {"partition", std::to_string(c.index)}, {"attempt", std::to_string(c.attempt)},
               {"seconds", fmt::format("{:.3f}", double(now_ms() - started) / 1000.0)}, {"detail", detail}});
  };
  bool final_failure = false;
  std::string error;
  bool ok = false;
  std::string proof_json, public_json;
  try {
    auto loaded = load(c.key_id);
    {
      std::lock_guard lk(keys_mu_);
      last_used_[c.key_id] = now_ms();
    }
    ec::with_engine(loaded->curve, [&](auto e) {
      using E = decltype(e);
      auto& engine = engines_->get<E>();
      std::shared_ptr<const circuit::PartitionSource<typename E::Fr>> src;
      if (c.native_seed) {
        const auto& cs = loaded->template cs<E>();
        if (!cs) {
          final_failure = true;
          throw Error(fmt::format("key {} is not a native circuit's key", c.key_id));
        }
        auto native = circuit::porep_source<typename E::Fr>(
            circuit::porep_for_log2(*loaded->rec.native_log2, *c.native_seed), cs);
        src = std::make_shared<OnePartition<typename E::Fr>>(std::move(native), c.index);
      } else {
        const std::string path = store_->witness_path(c.job_id, c.index);
        std::vector<io::Witness<E>> ws;
        try {
          ws.push_back(io::read_wtns<E>(path));
        } catch (const Error& err) {
          final_failure = true;
          throw Error(fmt::format("its witness cannot be read: {}", err.what()));
        }
        src = std::make_shared<pipeline::CircomSource<E>>(loaded->template pk<E>(), std::move(ws), nullptr,
                                                          "its witness");
      }
      std::uint64_t id = 0;
      try {
        id = engine.submit({src, loaded->template key<E>(), 1});
      } catch (const Error&) {
        final_failure = true;
        throw;
      }
      bool cancelled_before = false;
      {
        std::lock_guard lk(mu_);
        auto& r = running_[key];
        r.cancel = [&engine, id] { engine.cancel(id); };
        r.curve = int(E::kId);
        r.engine_job = id;
        cancelled_before = r.cancelled;
      }
      if (cancelled_before) engine.cancel(id);
      auto res = engine.wait(id);
      if (res.ok) {
        proof_json = io::proof_to_json<E>(res.proofs[0]);
        public_json = io::public_to_json<E>(res.publics[0]);
        ok = true;
      } else {
        // The engine names the partition ("partition 0: ..."); the store's job error does too.
        error = res.error;
        if (const auto p = fmt::format("partition 0: "); error.starts_with(p)) error = error.substr(p.size());
        final_failure = res.error != "cancelled";
      }
    });
  } catch (const NotFound& e) {
    error = e.what();
    final_failure = true;
  } catch (const std::exception& e) {
    error = e.what();
  }
  bool cancelled = false, stopping = false;
  {
    std::lock_guard lk(mu_);
    cancelled = running_[key].cancelled;
    stopping = stopping_;
  }
  try {
    if (ok) {
      if (store_->commit_partition_result(c, proof_json, public_json)) {
        finish("partition_done", "");
        hist_->done->Observe(double(now_ms() - started) / 1000.0);
        const auto j = store_->get_job(c.job_id, false, false);
        std::lock_guard lk(mu_);
        ++partitions_done_;
        // Only the last partition's commit makes a job succeed: counted once.
        if (j && j->state == JobState::succeeded && j->partitions_done == j->partition_count &&
            j->finished_at)
          ++jobs_succeeded_;
      } else {
        finish("partition_discarded", "the claim no longer holds (job cancelled or failed)");
      }
    } else if (cancelled && stopping) {
      store_->release(c);
      finish("partition_released", "the daemon is stopping");
    } else if (cancelled) {
      finish("partition_dropped", "job cancelled");
    } else {
      // An input's fault (bad witness, unsatisfied constraint, proof that does not verify) fails
      // its job; anything else is retried up to max_attempts.
      if (store_->fail_partition(c, error, /*retryable=*/!final_failure) && final_failure) {
        std::lock_guard lk(mu_);
        ++jobs_failed_;
      }
      finish(final_failure ? "partition_failed" : "partition_retry", error);
    }
  } catch (const std::exception& e) {
    finish("store error", e.what());
  }
  {
    std::lock_guard lk(mu_);
    if (auto it = running_.find(key); it != running_.end()) {
      engine_stage_.erase({it->second.curve, it->second.engine_job});
      running_.erase(it);
    }
  }
  work_cv_.notify_all();
  changed(c.job_id);
  if (auto j = store_->get_job(c.job_id, false, false); !j || is_final(j->state)) {
    bool first = false;
    {
      std::lock_guard lk(change_mu_);
      first = job_changes_.count(c.job_id) > 0;  // the first partition to see the end logs it
    }
    job_ended(c.job_id);
    if (j && first)
      log_event(j->state == JobState::succeeded ? spdlog::level::info : spdlog::level::warn, "job_finished",
                {{"job", c.job_id}, {"state", to_string(j->state)},
                 {"partitions_done", std::to_string(j->partitions_done)},
                 {"partitions", std::to_string(j->partition_count)},
                 {"seconds", fmt::format("{:.3f}", double(j->finished_at.value_or(now_ms()) - j->created_at) / 1000.0)},
                 {"error", j->error}});
  }
}

std::string Daemon::memory_svg() {
  const auto tl = sampler_->timeline();
  mem::PlotOptions po;
  po.title = "splitprove serve: memory since start";
  return mem::render_svg(tl, mem::analyze(tl), po);
}

void Daemon::collector() {
  auto next = std::chrono::steady_clock::now();
  for (;;) {
    {
      std::unique_lock lk(mu_);
      if (work_cv_.wait_until(lk, next, [&] { return stopping_; })) return;
    }
    try {
      const Millis t = now_ms();
      const auto r = store_->collect(t - Millis(cfg_.input_retention_minutes) * 60'000,
                                     t - Millis(cfg_.job_retention_hours) * 3'600'000);
      if (r.inputs_removed || r.jobs_deleted)
        log_event(spdlog::level::info, "collected",
                  {{"inputs", std::to_string(r.inputs_removed)}, {"jobs", std::to_string(r.jobs_deleted)}});
    } catch (const std::exception& e) {
      log_event(spdlog::level::err, "collection_failed", {{"error", e.what()}});
    }
    next = std::chrono::steady_clock::now() + std::chrono::seconds(cfg_.gc_interval_s);
  }
}

void Daemon::stop(std::chrono::milliseconds grace) {
  {
    std::lock_guard lk(mu_);
    if (stopping_ && threads_.empty()) return;
    stopping_ = true;
  }
  accepting_ = false;
  work_cv_.notify_all();
  // In-flight partitions get the grace period to finish.
  const auto until = std::chrono::steady_clock::now() + grace;
  for (;;) {
    {
      std::lock_guard lk(mu_);
      if (running_.empty() || std::chrono::steady_clock::now() >= until) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::vector<std::function<void()>> cancels;
  {
    std::lock_guard lk(mu_);
    for (auto& [k, r] : running_) {
      r.cancelled = true;
      if (r.cancel) cancels.push_back(r.cancel);
    }
  }
  for (auto& c : cancels) c();
  for (auto& t : threads_)
    if (t.joinable()) t.join();
  threads_.clear();
  engines_->shutdown();
  if (sampler_) sampler_->stop();
  changed("");
}

}  // namespace splitprove::service

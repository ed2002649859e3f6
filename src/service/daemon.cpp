#include "service/daemon.hpp"
#include "service/daemon_parts.hpp"

#include <prometheus/registry.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "ec/curves.hpp"
#include "io/json.hpp"
#include "io/wtns.hpp"
#include "mem/plot.hpp"
#include "mem/process_memory.hpp"
#include "mem/units.hpp"
#include "mem/verdict.hpp"
#include "pipeline/backend.hpp"
#include "pipeline/circom_source.hpp"
#include "pipeline/engine.hpp"
#include "service/errors.hpp"
#include "service/log.hpp"
#include "util/limits.hpp"

namespace splitprove::service {
namespace fs = std::filesystem;

void DaemonConfig::check() const {
  if (store.state_dir.empty()) throw Error("serve: no state directory (--state-dir)");
  if (key_dir.empty()) throw Error("serve: no key directory (--key-dir)");
  const auto threads = util::max_threads();
  if (synthesis_workers == 0 || synthesis_workers > threads)
    throw Error(fmt::format("serve: synthesis workers {}: 1..{} on this machine", synthesis_workers, threads));
  if (gpu_workers == 0 || gpu_workers > 64)
    throw Error(fmt::format("serve: GPU workers {}: 1..64", gpu_workers));
  pipeline::BackendRequest req;
  req.backend = backend;
  req.devices = devices;
  req.logical_devices = logical_devices;
  try {
    req.check();
  } catch (const Error& e) {
    throw Error(fmt::format("serve: {}", e.what()));
  }
  if (window > 4096) throw Error(fmt::format("serve: window {}: at most 4096", window));
  if (max_pending_jobs == 0 || max_pending_jobs > 1'000'000)
    throw Error(fmt::format("serve: max_pending_jobs {}: 1..1000000", max_pending_jobs));
  if (max_partitions_per_job == 0 || max_partitions_per_job > 65536)
    throw Error(fmt::format("serve: max_partitions_per_job {}: 1..65536", max_partitions_per_job));
  if (store.max_attempts == 0 || store.max_attempts > 100)
    throw Error(fmt::format("serve: max_attempts {}: 1..100", store.max_attempts));
  if (gc_interval_s == 0) throw Error("serve: gc_interval_s must be at least 1");
}

namespace {
std::string owner_name() { return fmt::format("{}:{}:{}", host_name(), ::getpid(), now_ms()); }
}  // namespace

Daemon::Daemon(DaemonConfig cfg) : cfg_(std::move(cfg)) {
  cfg_.check();
  std::error_code ec;
  if (!fs::is_directory(cfg_.key_dir, ec))
    throw Error(fmt::format("serve: key directory {}: not a directory", cfg_.key_dir));
  store_ = open_store(cfg_.store);
  shared_store_ = store_->cluster().shared;
  recovery_ = store_->recover();
  owner_ = owner_name();
  refresh_claimable();
  started_at_ = now_ms();
  metrics_ = std::make_shared<prometheus::Registry>();
  hist_ = std::make_unique<Histograms>(*metrics_);
  hist_->done = &hist_->partition.Add({}, Histograms::buckets());
  engines_ = std::make_unique<Engines>(
      cfg_, [this](int curve, std::uint64_t job, std::string_view stage, bool start) {
        on_stage(curve, job, stage, start);
      });
  // The devices now, not at the first job: a backend or device list that cannot serve stops the
  // daemon here. Enough claims to fill every slot of the pipeline (pw synthesis, the GPU queue,
  // gw GPU workers per device, the G2 backlog and worker, the finalize backlog and finalizer)
  // with two more reading inputs.
  const std::uint32_t gpu_workers = engines_->gpu_workers<ec::Bls12_381>();
  if (cfg_.window == 0) cfg_.window = std::min<std::uint32_t>(4096, cfg_.synthesis_workers + gpu_workers + 7);
  {
    mem::SamplerOptions so;
    so.interval = std::chrono::milliseconds(1000);
    so.split_anon_file = false;
    so.max_samples = 4096;
    so.max_events = 1024;
    // The timeline carries the books of the engines' budgets (the one budget with --budget, else
    // each engine's own) beside RSS: what is held on purpose (resident keys, pooled buffers,
    // scratch) is told apart from memory that no book stands for.
    sampler_ = std::make_unique<mem::MemorySampler>([e = engines_.get()] { return e->all_books(); }, so);
    sampler_epoch_ = now_ms();
    sampler_->start();
  }
  if (const char* leak = std::getenv("SPLITPROVE_TEST_LEAK_PER_PARTITION"); leak && *leak) {
    test_leak_per_partition_ = mem::parse_size(leak, "SPLITPROVE_TEST_LEAK_PER_PARTITION");
    log_event(spdlog::level::warn, "test_leak",
              {{"bytes_per_partition", std::to_string(test_leak_per_partition_)},
               {"detail", "test hook: every partition proved leaks this much on purpose"}});
  }
  for (std::uint32_t i = 0; i < cfg_.window; ++i) threads_.emplace_back([this] { driver(); });
  threads_.emplace_back([this] { collector(); });
  threads_.emplace_back([this] { heartbeat_loop(); });
  accepting_ = true;
}

Daemon::~Daemon() { stop(std::chrono::milliseconds(0)); }

bool Daemon::devices_serving() const { return engines_->serving(); }

void Daemon::changed(const std::string& job_id) {
  {
    std::lock_guard lk(change_mu_);
    ++change_seq_;
    if (job_id.empty()) {
      for (auto& [j, n] : job_changes_) n = change_seq_;
    } else if (!ended_.count(job_id)) {
      job_changes_[job_id] = change_seq_;
    }
  }
  change_cv_.notify_all();
}

bool Daemon::job_ended(const std::string& job_id) {
  bool first = false;
  {
    std::lock_guard lk(change_mu_);
    job_changes_.erase(job_id);
    first = ended_.insert(job_id).second;
    if (first) {
      ended_order_.push_back(job_id);
      if (ended_order_.size() > kEndedKept) {
        ended_.erase(ended_order_.front());
        ended_order_.pop_front();
      }
    }
  }
  change_cv_.notify_all();
  return first;
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
      if (r.curve == curve && r.engine_job == engine_job) job_id = k.job_id;
  }
  if (!job_id.empty()) changed(job_id);
}

std::map<std::uint32_t, Daemon::RunningInfo> Daemon::running_partitions(const std::string& job_id) {
  std::map<std::uint32_t, RunningInfo> out;
  std::lock_guard lk(mu_);
  for (const auto& [k, r] : running_)
    if (k.job_id == job_id) {
      RunningInfo& i = out[k.index] = RunningInfo{};  // the latest attempt's, if a stale one is in flight too
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
  s.cluster = store_->cluster();
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
      s.partitions.push_back({k.job_id, k.index, r.claim.attempt, r.since, stage});
    }
  }
  try {
    const auto tl = sampler_->timeline();
    const auto v = memory_verdict(tl);
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
    bool polling = false;
    {
      // Once a claim came back empty, one driver at a time asks the store again, every 200 ms,
      // until a claim succeeds or a Submit here lands (a shared store is asked by every daemon:
      // its idle load stays one query per daemon per interval, not one per driver).
      std::unique_lock lk(mu_);
      for (;;) {
        if (stopping_) return;
        if (!idle_) break;
        const auto now = std::chrono::steady_clock::now();
        if (!poller_ && now >= idle_until_) {
          poller_ = polling = true;
          break;
        }
        work_cv_.wait_until(lk, poller_ ? now + std::chrono::milliseconds(200) : idle_until_);
      }
    }
    // A partition is claimed only when the budget admits one more (while one of ours waits for
    // memory, the others' daemons take the queue) and a device is in service to prove it.
    const bool full = (engines_->budget && engines_->budget->has_waiters()) || !engines_->serving();
    try {
      if (!full) claims = store_->next_partitions(1, owner_, claimable());
    } catch (const std::exception& e) {
      log_event(spdlog::level::err, "claim_failed", {{"error", e.what()}});
    }
    {
      std::lock_guard lk(mu_);
      if (polling) poller_ = false;
      idle_ = claims.empty();
      if (idle_) idle_until_ = std::chrono::steady_clock::now() + std::chrono::milliseconds(200);
    }
    work_cv_.notify_all();  // found work: every driver claims; none: the next poller waits its turn
    if (claims.empty()) {
      note_drain();
      continue;
    }
    run_partition(claims.front());
  }
}

void Daemon::run_partition(const Claim& c) {
  const RunKey key{c.job_id, c.index, c.attempt};  // this claim's own entry (see running_)
  {
    std::lock_guard lk(mu_);
    if (stopping_) {
      store_->release(c);
      return;
    }
    if (!in_work_) {
      in_work_ = true;
      sampler_->mark(mem::kWorkStart);
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
  bool final_failure = false, key_missing = false, devices_down = false;
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
        src = std::make_shared<daemon_detail::OnePartition<typename E::Fr>>(std::move(native), c.index);
      } else {
        std::vector<io::Witness<E>> ws;
        {
          // A store that cannot answer now is retried; a witness that is not there, or not a
          // witness, fails the job.
          try {
            const auto local = store_->open_witness(c);
            ws.push_back(io::read_wtns<E>(local->path()));
          } catch (const Unavailable&) {
            throw;
          } catch (const StoreError&) {
            throw;
          } catch (const Error& err) {
            final_failure = true;
            throw Error(fmt::format("its witness cannot be read: {}", err.what()));
          }
        }
        src = std::make_shared<pipeline::CircomSource<E>>(loaded->template pk<E>(), std::move(ws), nullptr,
                                                          "its witness");
      }
      std::uint64_t id = 0;
      try {
        id = engine.submit({src, loaded->template key<E>(), 1});
      } catch (const DeviceFault&) {
        devices_down = true;  // no device in service: the partition goes back to the queue
        throw;
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
        // A job failed by its devices is the devices' fault, not the input's: proved again, as
        // a new attempt (max_attempts bounds a partition that breaks every device it meets);
        // given back without spending one only when the devices were out before it came.
        devices_down = res.device_fault && res.device_faults == 0 && !engine.serving();
        final_failure = res.error != "cancelled" && !res.device_fault;
      }
    });
  } catch (const KeyUnavailable& e) {
    error = e.what();
    key_missing = true;
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
      if (const auto done = store_->commit_partition_result(c, proof_json, public_json)) {
        finish("partition_done", "");
        hist_->done->Observe(double(now_ms() - started) / 1000.0);
        std::lock_guard lk(mu_);
        ++partitions_done_;
        if (done.job_done) ++jobs_succeeded_;  // the commit that ended the job: counted once
      } else {
        finish("partition_discarded", "the claim no longer holds (job cancelled or failed)");
      }
    } else if (cancelled && stopping) {
      store_->release(c);
      finish("partition_released", "the daemon is stopping");
    } else if (key_missing || devices_down) {
      store_->release(c);  // another daemon with the key (or with a device) takes it
      finish("partition_released", error);
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
    if (running_.empty()) drained_at_ = std::chrono::steady_clock::now();
    if (ok && test_leak_per_partition_) {
      test_leaked_.push_back(std::make_unique<char[]>(test_leak_per_partition_));
      std::memset(test_leaked_.back().get(), 0x5a, test_leak_per_partition_);  // resident
    }
  }
  work_cv_.notify_all();
  changed(c.job_id);
  // The job as this partition's write left it: a job ends only through one partition's write
  // (or Cancel, which ends it itself), so the partition whose write ended it sees the end here.
  std::optional<JobRecord> j;
  try {
    j = store_->get_job(c.job_id, false, false);
  } catch (const std::exception& e) {
    log_event(spdlog::level::warn, "store_error", {{"job", c.job_id}, {"error", e.what()}});
    return;
  }
  if (!j || is_final(j->state)) {
    // The first partition to see the end logs it; the check and the mark are one step, so two
    // partitions ending at once log it once. A cancelled job's end is Cancel's (job_cancelled).
    const bool first = job_ended(c.job_id);
    if (j && first && j->state != JobState::cancelled)
      log_event(j->state == JobState::succeeded ? spdlog::level::info : spdlog::level::warn, "job_finished",
                {{"job", c.job_id}, {"state", to_string(j->state)},
                 {"partitions_done", std::to_string(j->partitions_done)},
                 {"partitions", std::to_string(j->partition_count)},
                 {"seconds", fmt::format("{:.3f}", double(j->finished_at.value_or(now_ms()) - j->created_at) / 1000.0)},
                 {"error", j->error}});
  }
}

mem::Verdict Daemon::memory_verdict(const mem::Timeline& tl) const {
  // Judged on what has drained: the work since the first job against the idle level before it,
  // held memory (resident keys, pooled buffers, scratch) told apart by the books. With --budget
  // the peak is judged against it; without, against the most the books held.
  mem::VerdictOptions o;
  o.books_as_model = !cfg_.budget;
  const auto judged = mem::drained_part(tl);
  if (!judged) {
    mem::Verdict v = mem::analyze(tl, o);
    v.verdict = mem::VerdictClass::unknown;
    v.reason = tl.last_event(mem::kWorkStart)
                   ? "working since the first job: the verdict is given once work drains"
                   : "no work yet: the verdict is given once the first job's work drains";
    return v;
  }
  mem::Timeline t = *judged;
  if (cfg_.budget) {
    t.set_meta(std::string(mem::kMetaModelWorkBytes), std::to_string(cfg_.budget));
    t.set_meta(std::string(mem::kMetaBudgetBytes), std::to_string(cfg_.budget));
  }
  return mem::analyze(t, o);
}

std::string Daemon::memory_svg() {
  const auto tl = sampler_->timeline();
  mem::PlotOptions po;
  po.title = "splitprove serve: memory since start";
  po.epoch_ms = double(sampler_epoch_);
  return mem::render_svg(tl, memory_verdict(tl), po);
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

void Daemon::work_arrived() {
  {
    std::lock_guard lk(mu_);
    idle_ = false;
  }
  work_cv_.notify_all();
}

void Daemon::advertise(std::string listen) {
  std::lock_guard lk(mu_);
  advertise_ = std::move(listen);
}

void Daemon::note_drain() {
  {
    std::lock_guard lk(mu_);
    if (!in_work_ || !running_.empty() ||
        std::chrono::steady_clock::now() - drained_at_ < std::chrono::milliseconds(300))
      return;
  }
  // The workers' freed heap scratch that the allocator still keeps goes back to the system first,
  // so that the idle level after the work is what is really still allocated.
  mem::trim_heap();
  std::lock_guard lk(mu_);
  if (!in_work_ || !running_.empty()) return;  // a partition started meanwhile: still working
  in_work_ = false;
  sampler_->mark(mem::kWorkEnd);
  sampler_->sample_now();
}

void Daemon::heartbeat_loop() {
  const auto every = std::chrono::milliseconds(std::max<std::uint32_t>(200, cfg_.store.lease_ms / 3));
  Heartbeat hb;
  hb.owner = owner_;
  hb.host = host_name();
  hb.started_at = started_at_;
  for (auto next = std::chrono::steady_clock::now();; next += every) {
    {
      std::unique_lock lk(mu_);
      if (work_cv_.wait_until(lk, next, [&] { return stopping_; })) return;
      hb.listen = advertise_;
      hb.held.clear();
      for (const auto& [k, r] : running_) hb.held.push_back(r.claim);
    }
    try {
      const auto r = store_->heartbeat(hb);
      if (r.renewed < hb.held.size() && shared_store_)
        log_event(spdlog::level::warn, "leases_lost",
                  {{"held", std::to_string(hb.held.size())}, {"renewed", std::to_string(r.renewed)}});
      if (r.requeued || r.failed)
        log_event(spdlog::level::warn, "leases_expired",
                  {{"requeued", std::to_string(r.requeued)}, {"failed", std::to_string(r.failed)}});
      refresh_claimable();
    } catch (const std::exception& e) {
      log_event(spdlog::level::err, "heartbeat_failed", {{"error", e.what()}});
    }
    if (std::chrono::steady_clock::now() > next + every) next = std::chrono::steady_clock::now();
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
  try {
    store_->leave(owner_);
  } catch (const std::exception& e) {
    log_event(spdlog::level::warn, "store_error", {{"error", e.what()}});
  }
  engines_->shutdown();
  if (sampler_) sampler_->stop();
  changed("");
}

}  // namespace splitprove::service

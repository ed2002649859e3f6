#include "harness/run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>
#include <tuple>

#include "mem/process_memory.hpp"
#include "mem/plot.hpp"
#include "mem/sampler.hpp"
#include "mem/units.hpp"
#include "mem/verdict.hpp"
#include "splitprove/error.hpp"
#include "util/output.hpp"
#include "ec/curves.hpp"

namespace splitprove::harness {
using namespace pipeline;
namespace {

using Clock = std::chrono::steady_clock;

// Stages padded with a fixed wait that stands for device time (RunOptions::gpu_delay, g2_delay).
template <class E>
class DelayedGpu final : public GpuStageAround<E> {
 public:
  using Fr = typename E::Fr;
  DelayedGpu(std::shared_ptr<GpuStage<E>> in, std::chrono::milliseconds d)
      : GpuStageAround<E>(std::move(in)), d_(d) {}
  std::string name() const override { return fmt::format("{}+{}ms", this->inner_->name(), d_.count()); }
  zk::G1Results<E> run(const Key<E>& key, mem::Buffer<Fr> z, mem::Buffer<Fr> a,
                       mem::Buffer<Fr> b) override {
    std::this_thread::sleep_for(d_);
    return GpuStageAround<E>::run(key, std::move(z), std::move(a), std::move(b));
  }

 private:
  std::chrono::milliseconds d_;
};

template <class E>
class DelayedG2 final : public G2StageAround<E> {
 public:
  using Fr = typename E::Fr;
  DelayedG2(std::shared_ptr<G2Stage<E>> in, std::chrono::milliseconds d)
      : G2StageAround<E>(std::move(in)), d_(d) {}
  std::string name() const override { return fmt::format("{}+{}ms", this->inner_->name(), d_.count()); }
  typename E::G2Jacobian run(const Key<E>& key, std::span<const Fr> s) override {
    std::this_thread::sleep_for(d_);
    return G2StageAround<E>::run(key, s);
  }

 private:
  std::chrono::milliseconds d_;
};

constexpr const char* kMeasuredStart = "measured_start";
constexpr const char* kMeasuredEnd = "measured_end";

}  // namespace

// Fraction of [from, to] during which at least one of `stages` ran (from the stage events
// "start:<stage>:<item>" / "end:<stage>:<item>").
double busy_fraction(const mem::Timeline& tl, const std::vector<std::string>& stages, double from, double to) {
  if (!(to > from)) return 0;
  std::map<std::string, double> open;  // "<stage>:<item>" -> start
  std::vector<std::pair<double, double>> spans;
  for (const auto& e : tl.events) {
    const bool start = e.label.starts_with("start:"), end = e.label.starts_with("end:");
    if (!start && !end) continue;
    const std::string rest = e.label.substr(start ? 6 : 4);
    const std::string stage = rest.substr(0, rest.find(':'));
    if (std::find(stages.begin(), stages.end(), stage) == stages.end()) continue;
    if (start) {
      open[rest] = e.t;
    } else if (auto it = open.find(rest); it != open.end()) {
      spans.emplace_back(std::max(it->second, from), std::min(e.t, to));
      open.erase(it);
    }
  }
  std::sort(spans.begin(), spans.end());
  double busy = 0, cur0 = 0, cur1 = -1;
  for (const auto& [a, b] : spans) {
    if (b <= a) continue;
    if (a > cur1) {
      if (cur1 > cur0) busy += cur1 - cur0;
      cur0 = a;
      cur1 = b;
    } else {
      cur1 = std::max(cur1, b);
    }
  }
  if (cur1 > cur0) busy += cur1 - cur0;
  return busy / (to - from);
}

namespace {
// The runtime's own memory over the samples from `from` (seconds) on, against the samples before
// work_start: the most RSS above the baseline that the books do not stand for, but at least the
// growth of the file-backed pages (the code and libraries the work touched first: the books'
// reservations made before the work, the workers' scratch, are not resident yet and would hide
// it in RSS alone).
std::uint64_t runtime_above_baseline(const mem::Timeline& tl, double from) {
  const double ws = tl.first_event(mem::kWorkStart).value_or(from);
  std::vector<std::uint64_t> rss, file;
  for (const auto& s : tl.samples)
    if (s.t < ws) {
      rss.push_back(s.rss);
      file.push_back(s.file);
    }
  if (rss.empty()) return 0;
  const std::uint64_t baseline = mem::median(std::move(rss)), file_baseline = mem::median(std::move(file));
  std::uint64_t most = 0;
  for (const auto& s : tl.samples) {
    if (s.t < from) continue;
    if (s.rss > baseline + s.budget_used) most = std::max(most, s.rss - baseline - s.budget_used);
    if (s.file > file_baseline) most = std::max(most, s.file - file_baseline);
  }
  return most;
}
}  // namespace

template <class E>
RunReport run_jobs(const RunOptions& o, const std::function<JobSpec<E>(std::uint32_t)>& make_job) {
  return run_jobs<E>(o, make_job, make_backend<E>(o.backend));
}

template <class E>
RunReport run_jobs(const RunOptions& o, const std::function<JobSpec<E>(std::uint32_t)>& make_job,
                   const Backend<E>& backend) {
  if (o.jobs == 0 || o.partitions == 0)
    throw Error("pipeline run: jobs and partitions must be >= 1");
  std::vector<DeviceStages<E>> stages = backend.stages;
  for (auto& d : stages) {
    if (o.gpu_delay.count() > 0) d.gpu = std::make_shared<DelayedGpu<E>>(d.gpu, o.gpu_delay);
    if (o.g2_delay.count() > 0) d.g2 = std::make_shared<DelayedG2<E>>(d.g2, o.g2_delay);
  }

  std::vector<JobSpec<E>> specs;
  for (std::uint32_t j = 0; j < o.jobs; ++j) {
    specs.push_back(make_job(j));
    specs.back().partitions = o.partitions;
  }

  RunReport rep;
  rep.backend = backend.describe();
  // The workers' scratch is sized for these partitions and reserved when the engine starts.
  EngineConfig ecfg = o.engine;
  if (o.process_budget) {
    // What the process holds before any work - the key, the circuit, the runtime - counts against
    // the one budget; the engine gets the rest. Freed setup scratch cached by the allocator is
    // given back first, or it would count as held.
    mem::trim_heap();
    rep.resident_at_start = mem::read_rss();
    if (rep.resident_at_start >= o.process_budget)
      throw Error(fmt::format(
          "pipeline run: budget {}: the process already holds {} before any work (the key, the "
          "circuit, the runtime), so nothing is left for the partitions",
          mem::format_bytes(o.process_budget), mem::format_bytes(rep.resident_at_start)));
    ecfg.host_budget = o.process_budget - rep.resident_at_start;
  }
  rep.work_budget = ecfg.host_budget;
  ecfg.fit_devices(std::uint32_t(stages.size()), stages[0].g2_on_device);
  ecfg.pin_buffers_for(backend.pin_host_buffers);
  if (ecfg.policy == mem::Policy::held_until_finalize)  // that design bounds no backlog
    ecfg.g2_queue = ecfg.final_queue = EngineConfig::kMaxQueueBound;
  rep.pinned = mem::pins_pages(ecfg.buffers);
  {
    check_shape<E>(specs[0].source->shape(), *specs[0].key, specs[0].source->describe());
    ecfg.fit_scratch(partition_cost<E>(specs[0].source->shape(), *specs[0].key, ecfg.buffers,
                                       *stages[0].gpu, *stages[0].g2));
  }
  Engine<E> engine(ecfg, stages);
  rep.source = specs[0].source->describe();
  rep.cost = engine.cost_of(specs[0]);
  rep.worker_scratch = engine.worker_scratch_bytes();
  mem::MemorySampler sampler(&engine.budget(), mem::SamplerOptions{o.sample_interval, true});
  for (auto& [name, src] : backend.device_sources) sampler.add_device_source(name, src);
  engine.attach_sampler(&sampler);
  const auto model = mem::pipeline_model(ecfg.model_config(rep.cost, o.jobs, o.partitions),
                                         ecfg.policy);
  rep.prediction = mem::predict(model);

  // The same before the work: what setting up the circuit and key freed (e.g. the setup's MSM
  // scratch, cached by the allocator before the engine made it return freed blocks) is not part
  // of the baseline, or the run would reuse it unseen.
  mem::trim_heap();
  sampler.start();
  std::this_thread::sleep_for(o.settle);
  sampler.mark(mem::kWorkStart);
  auto key_make_s = [&] {
    double t = 0;
    if (backend.devices)
      for (const auto& d : backend.devices()) t += d.key_make_s;
    return t;
  };
  const double key_made_before = key_make_s();
  // The buffer warm-up: the partitions the workers hold at once; after the warm-up job, those of
  // the GPU queue too where the model counts it (a GPU stage slower than synthesis keeps it full;
  // at 2^27 on an H200 the first measured GPU stage took 3.3-5.3 s against 2.7-3.0 for the nine
  // after it, while the partition that would fill the queue made its 14 GiB of buffers fresh).
  const std::uint64_t all_partitions = std::uint64_t(o.jobs) * o.partitions;
  const std::uint64_t busy = std::uint64_t(engine.config().synthesis_workers) +
                             engine.config().total_gpu_workers();
  auto warm_buffers = [&](std::uint64_t partitions) {
    const auto tb = Clock::now();
    rep.warmed_partitions += engine.warm_buffers(
        specs[0], std::uint32_t(std::min(partitions, all_partitions)));
    rep.buffer_warm_s += std::chrono::duration<double>(Clock::now() - tb).count();
  };
  if (o.warm_buffers) warm_buffers(busy);
  // The key made ready on every device before any partition, as the daemon preloads its keys:
  // its time is reported apart, and no warm-up partition's stage runs beside the key's upload
  // (a GPU stage beside the first G2 stage's B2 points looked 3x slower to the prediction).
  {
    const auto tk = Clock::now();
    engine.prepare(*specs[0].key);
    rep.key_ready_s = std::chrono::duration<double>(Clock::now() - tk).count();
  }
  EngineStats warm{};
  if (o.warmup_partitions > 0) {
    // As many warm-up jobs at once as the measured run has (at most one per warm-up partition),
    // each beside the measured ones with its own data, the partitions shared out among them: what
    // a job in flight holds beyond the books (its source's data made at first use, its records)
    // is then in the runtime's measured memory as many times as the measured run holds it.
    const std::uint32_t warm_jobs = std::min(o.jobs, o.warmup_partitions);
    std::vector<JobSpec<E>> ws;
    for (std::uint32_t j = 0; j < warm_jobs; ++j) {
      ws.push_back(make_job(o.jobs + j));
      ws.back().partitions = o.warmup_partitions / warm_jobs + (j < o.warmup_partitions % warm_jobs ? 1 : 0);
    }
    // Each warm-up partition's synthesis and GPU stage times: the prediction of the measured jobs
    // leaves the GPU queue out when the GPU stage keeps up (mem::PipelineConfig).
    std::mutex times_mu;
    std::map<std::tuple<std::uint64_t, std::size_t, std::string>, Clock::time_point> started;
    double synth_min = 0, gpu_max = 0;
    std::uint32_t gpu_done = 0;
    engine.set_stage_observer([&](std::uint64_t job, std::size_t part, std::string_view stage, bool start) {
      if (stage != "synthesis" && stage != "gpu") return;
      std::lock_guard lk(times_mu);
      const auto key = std::tuple{job, part, std::string(stage)};
      if (start) {
        started[key] = Clock::now();
        return;
      }
      const auto it = started.find(key);
      if (it == started.end()) return;
      const double t = std::chrono::duration<double>(Clock::now() - it->second).count();
      // The first GPU stage of a warm-up of several partitions is cold (the device pools and
      // scratch are made): the measured jobs' stages are the later ones.
      if (stage == "synthesis")
        synth_min = synth_min == 0 ? t : std::min(synth_min, t);
      else if (gpu_done++ > 0 || o.warmup_partitions < 2)
        gpu_max = std::max(gpu_max, t);
    });
    const auto tw = Clock::now();
    const double warm_from = sampler.now();
    std::vector<std::uint64_t> warm_ids;
    for (auto& w : ws) warm_ids.push_back(engine.submit(w));
    std::string warm_error;
    for (auto id : warm_ids)
      if (const auto r = engine.wait(id); !r.ok && warm_error.empty()) warm_error = r.error;
    engine.set_stage_observer({});
    if (!warm_error.empty()) throw Error(fmt::format("pipeline run: the warm-up job failed: {}", warm_error));
    rep.warmup_s = std::chrono::duration<double>(Clock::now() - tw).count();
    // What the runtime itself holds beyond the books once it has run the work (allocator arenas
    // and the free chunks they keep, thread stacks, caches made at first use, the code first
    // run): measured over the warm-up job. The measured jobs run on the same runtime, so the
    // prediction adds it.
    sampler.sample_now();
    rep.runtime_bytes = runtime_above_baseline(sampler.timeline(), warm_from);
    warm = engine.stats();
    for (auto& d : stages) d.gpu->reset_phase_report();
    {
      std::lock_guard lk(times_mu);
      rep.warmup_synthesis_min_s = synth_min;
      rep.warmup_gpu_max_s = gpu_max;
    }
    auto mc = ecfg.model_config(rep.cost, o.jobs, o.partitions);
    mc.synthesis_min_s = rep.warmup_synthesis_min_s;
    mc.gpu_stage_max_s = rep.warmup_gpu_max_s;
    rep.gpu_queue_left_out = mc.gpu_queue_stays_empty();
    rep.prediction = mem::predict(mem::pipeline_model(mc, ecfg.policy));
  }
  // (Only where the GPU stage's inputs die into the pool, as a device's do once copied: the CPU
  // stage unmaps them, so the pool holds no set for the top-up to count.)
  if (o.warm_buffers && !rep.gpu_queue_left_out && rep.cost.gpu_frees_inputs_early)
    warm_buffers(busy + engine.config().gpu_queue);
  sampler.mark(kMeasuredStart);
  const auto t0 = Clock::now();
  std::vector<std::uint64_t> ids;
  ids.reserve(specs.size());
  for (auto& s : specs) ids.push_back(engine.submit(s));
  // The RSS cap's watchdog: cancels every measured job once the process holds more than the cap.
  std::atomic<bool> done{false};
  std::atomic<std::uint64_t> stopped_at{0};
  std::thread watchdog;
  if (o.rss_cap > 0)
    watchdog = std::thread([&] {
      while (!done.load()) {
        if (const std::uint64_t rss = mem::read_rss(); rss > o.rss_cap) {
          stopped_at = rss;
          std::fprintf(stderr, "pipeline run: RSS %s above the cap %s: cancelling the jobs\n",
                       mem::format_bytes(rss).c_str(), mem::format_bytes(o.rss_cap).c_str());
          for (auto id : ids) engine.cancel(id);
          return;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    });
  std::vector<JobResult<E>> results;
  results.reserve(ids.size());
  for (auto id : ids) results.push_back(engine.wait(id));
  done = true;
  if (watchdog.joinable()) watchdog.join();
  if (stopped_at.load()) rep.stopped_at_rss = stopped_at.load();
  rep.wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
  sampler.mark(kMeasuredEnd);
  rep.stats = engine.stats();
  for (auto [now, before] : {std::pair{&rep.stats.synthesis, &warm.synthesis}, std::pair{&rep.stats.gpu, &warm.gpu},
                             std::pair{&rep.stats.g2, &warm.g2}, std::pair{&rep.stats.finalize, &warm.finalize}}) {
    now->items -= before->items;
    now->busy_s -= before->busy_s;
  }
  rep.stats.partitions_done -= warm.partitions_done;
  for (std::size_t d = 0; d < warm.devices.size() && d < rep.stats.devices.size(); ++d) {
    rep.stats.devices[d].gpu_items -= warm.devices[d].gpu_items;
    rep.stats.devices[d].g2_items -= warm.devices[d].g2_items;
  }
  rep.stats.jobs_done -= warm.jobs_done;
  rep.books = engine.budget().books();
  rep.books_peak = rep.books.peak;
  for (const auto& d : stages) {
    const std::string ph = d.gpu->phase_report();
    if (ph.empty()) continue;
    if (!rep.gpu_phases.empty()) rep.gpu_phases += "\n";
    rep.gpu_phases += stages.size() > 1 ? d.state->name() + ": " + ph : ph;
  }
  for (const auto& sp : specs) rep.synthesis_phases += sp.source->phases();  // not the warm-up's
  rep.pool = engine.pool_stats();
  rep.key_make_s = key_make_s() - key_made_before;  // this run's: a sweep's later runs find it made
  // Everything back: the workers' scratch too (the verdict checks RSS came back to baseline).
  engine.shutdown();
  rep.books_after_shutdown = engine.budget().books().used;
  // The work ends when the engine has given everything back: its recycled pages (idle in the
  // pool until shutdown) belong to the run, not to what follows it.
  sampler.mark(mem::kWorkEnd);
  // The workers' heap scratch (MSM buckets, tails) was freed; what the allocator still keeps in
  // free chunks goes back to the OS, so that the drain check (and a next run's baseline, in a
  // sweep) sees what is really still allocated. Memory still allocated stays.
  mem::trim_heap();
  std::this_thread::sleep_for(o.settle);
  sampler.stop();
  engine.attach_sampler(nullptr);

  for (std::size_t j = 0; j < results.size(); ++j) {
    const auto& r = results[j];
    if (!r.ok && rep.stopped_at_rss && r.error == "cancelled") continue;
    if (!r.ok) throw Error(fmt::format("pipeline run: job {} failed: {}", j, r.error));
    // The engine verified each proof before releasing it; check again here, independently.
    for (std::size_t i = 0; i < r.proofs.size(); ++i)
      if (!zk::verify<E>(specs[j].key->pvk, r.publics[i], r.proofs[i]))
        throw Error(fmt::format("pipeline run: job {} partition {}: proof does not verify", j, i));
    rep.partitions += r.proofs.size();
  }
  rep.s_per_proof = rep.wall_s / o.jobs;
  rep.partitions_per_s = double(rep.partitions) / rep.wall_s;

  mem::Timeline tl = sampler.timeline();
  // What the model says the books can hold (under a budget: the most whole items that fit it),
  // so the verdict's expected peak is baseline + that.
  tl.set_meta(std::string(mem::kMetaModelWorkBytes), std::to_string(rep.prediction.held_bytes));
  tl.set_meta(std::string(mem::kMetaRuntimeBytes), std::to_string(rep.runtime_bytes));
  if (ecfg.host_budget)
    tl.set_meta(std::string(mem::kMetaBudgetBytes), std::to_string(ecfg.host_budget));
  tl.set_meta("title", o.title);
  tl.set_meta("source", rep.source);
  tl.set_meta("backend", rep.backend);
  tl.set_meta(
      "config",
      fmt::format("pw={} gw={}{} g2w={} fw={} jobs={} partitions={} split={} budget={}",
                  o.engine.synthesis_workers, o.engine.gpu_workers,
                  stages.size() > 1 ? fmt::format(" (×{} devices)", stages.size()) : "",
                  o.engine.g2_workers,
                  o.engine.finalizers, o.jobs, o.partitions, o.engine.split_g2 ? "yes" : "no",
                  budget_text(o, rep)));
  rep.verdict = mem::analyze(tl);
  {
    // The device's busy fraction: the union of the stages that run on it (the GPU stage, and the
    // G2 stage when the device backend runs it), over the measured window.
    std::vector<std::string> on_device;
    if (backend.gpu().name() != "cpu") on_device.push_back("gpu");
    if (backend.g2().name() != "cpu") on_device.push_back("g2");
    const auto from = tl.first_event(kMeasuredStart), to = tl.last_event(kMeasuredEnd);
    if (!on_device.empty() && from && to) rep.device_busy = busy_fraction(tl, on_device, *from, *to);
  }
  rep.predicted_peak = rep.verdict.expected_peak.value_or(0);
  rep.within_process_budget = !o.process_budget || rep.verdict.peak <= o.process_budget;

  if (!o.out_dir.empty()) {
    std::filesystem::create_directories(o.out_dir);
    auto path = [&](const char* f) { return (std::filesystem::path(o.out_dir) / f).string(); };
    mem::save_csv(mem::downsample(tl, 400), path("timeline.csv"));
    mem::save_jsonl(tl, path("timeline.jsonl"));
    mem::save_svg(tl, rep.verdict, path("memory.svg"));
    util::write_file_atomic(path("waterfall.svg"),
                            render_waterfall(tl, o.title + " - stages per partition"));
    util::write_file_atomic(path("verdict.txt"), mem::format_report(rep.verdict));
    {
      nlohmann::json j;
      j["source"] = rep.source;
      j["backend"] = rep.backend;
      j["config"] = *tl.meta_value("config");
      j["partitions"] = rep.partitions;
      j["wall_s"] = rep.wall_s;
      j["warmup_partitions"] = o.warmup_partitions;
      j["warmup_s"] = rep.warmup_s;
      j["key_made_on_device_s"] = rep.key_make_s;
      if (rep.device_busy) j["device_busy_fraction"] = *rep.device_busy;
      j["s_per_proof"] = rep.s_per_proof;
      j["partitions_per_s"] = rep.partitions_per_s;
      j["life_cost_bytes"] = rep.cost.life();
      j["gpu_frees_inputs_early"] = rep.cost.gpu_frees_inputs_early;
      j["partition_bytes"] = {{"z", rep.cost.z},
                              {"ab", rep.cost.ab},
                              {"g2_input", rep.cost.g2_input},
                              {"result", rep.cost.result}};
      j["worker_scratch_bytes"] = rep.worker_scratch;
      j["scratch_per_worker_bytes"] = {{"synthesis", ecfg.synth_scratch},
                                       {"gpu", ecfg.gpu_worker_scratch()},
                                       {"g2", ecfg.g2_worker_scratch()}};
      j["model_work_bytes"] = rep.prediction.work_bytes;
      j["model_held_bytes"] = rep.prediction.held_bytes;
      j["unaccounted_max_bytes"] = rep.verdict.unaccounted_max;
      j["after_drain_delta_bytes"] = rep.verdict.drain_delta;
      j["predicted_peak_bytes"] = rep.predicted_peak;
      j["runtime_bytes"] = rep.runtime_bytes;
      j["peak_rss_bytes"] = rep.verdict.peak;
      j["baseline_bytes"] = rep.verdict.baseline;
      j["process_budget_bytes"] = o.process_budget;
      j["resident_at_start_bytes"] = rep.resident_at_start;
      j["work_budget_bytes"] = rep.work_budget;
      j["within_process_budget"] = rep.within_process_budget;
      j["warmed_partitions"] = rep.warmed_partitions;
      j["buffer_warm_s"] = rep.buffer_warm_s;
      j["key_ready_s"] = rep.key_ready_s;
      j["warmup_synthesis_min_s"] = rep.warmup_synthesis_min_s;
      j["warmup_gpu_max_s"] = rep.warmup_gpu_max_s;
      j["gpu_queue_left_out"] = rep.gpu_queue_left_out;
      j["books_peak_bytes"] = rep.books_peak;
      for (auto t : mem::kAllTags)
        j["books_peak_by_tag"][std::string(mem::tag_name(t))] = rep.books[t].peak;
      j["verdict"] = std::string(mem::verdict_name(rep.verdict.verdict));
      auto stage = [](const StageStats& s) {
        return nlohmann::json{{"items", s.items},
                              {"busy_s", s.busy_s},
                              {"mean_s", s.items ? s.busy_s / double(s.items) : 0.0}};
      };
      j["stages"] = {{"synthesis", stage(rep.stats.synthesis)},
                     {"gpu", stage(rep.stats.gpu)},
                     {"g2", stage(rep.stats.g2)},
                     {"finalize", stage(rep.stats.finalize)}};
      if (const auto& sp = rep.synthesis_phases; sp.partitions > 0)
        j["synthesis_phases"] = {{"partitions", sp.partitions},
                                 {"witness_s", sp.witness_s},
                                 {"ab_s", sp.ab_s},
                                 {"check_s", sp.check_s}};
      for (const auto& d : rep.stats.devices)
        j["devices"].push_back({{"name", d.name},
                                {"gpu_items", d.gpu_items},
                                {"g2_items", d.g2_items},
                                {"faults", d.faults},
                                {"healthy", d.healthy}});
      util::write_file_atomic(path("summary.json"), j.dump(2) + "\n");
    }
    for (const char* f : {"memory.svg", "waterfall.svg", "timeline.csv", "timeline.jsonl",
                          "verdict.txt", "summary.json"})
      rep.files.push_back(path(f));
  }
  return rep;
}

#define SPLITPROVE_RUN_INSTANTIATE(E)                                                      \
  template RunReport run_jobs<E>(const RunOptions&,                                        \
                                 const std::function<JobSpec<E>(std::uint32_t)>&);         \
  template RunReport run_jobs<E>(const RunOptions&,                                        \
                                 const std::function<JobSpec<E>(std::uint32_t)>&, const Backend<E>&);
SPLITPROVE_FOR_EACH_ENGINE(SPLITPROVE_RUN_INSTANTIATE)
#undef SPLITPROVE_RUN_INSTANTIATE

}  // namespace splitprove::harness


// The pipeline commands:
//   splitprove demo                     the main job: jobs of 10 partitions of a benchmark circuit
//                                       through the engine, every proof verified, memory measured
//   splitprove bench pipeline --size 2^k --partitions 10 --jobs j --synth-workers pw
//                             --gpu-workers gw --g2-workers n --finalizers n --budget 8GiB --out
//                             DIR [--sweep-pw 1,2,4 --sweep-jobs 1,4 --sweep-gw 1,2 --sweep-reps 3
//                             --sweep-held 8:4 --rss-cap 110GiB]
// Both build their benchmark circuit in memory, over the curve named by --curve (BLS12-381 by
// default, or BN254).
// Thin: options in, harness::run_jobs, the report out.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "harness/bench_circuits.hpp"
#include "cli/command.hpp"
#include "cli/device_options.hpp"
#include "mem/units.hpp"
#include "mem/verdict.hpp"
#include "harness/run.hpp"
#include "splitprove/error.hpp"
#include "util/limits.hpp"
#include "util/output.hpp"
#ifdef SPLITPROVE_HAVE_CUDA
#include "cuda/stage.hpp"
#endif

namespace splitprove::cli {
namespace {

struct BenchArgs {
  std::string size = "2^12", circuit = "porep", budget, out, gpu_delay = "0", g2_delay = "0";
  std::string curve = "bls12-381";  // the benchmark circuit's curve: bls12-381 or bn254
  std::string sweep_pw, sweep_jobs, sweep_gw;  // sweep mode: comma-separated lists
  std::string sweep_held;            // sweep mode: PW:JOBS of a held-until-finalize run beside
  std::string key_on = "auto";       // where the development key's points are made
  std::string policy = "splitprove", rss_cap, process_budget;
  std::uint32_t sweep_reps = 1;      // sweep mode: runs of each cell
  bool check = false;                // exit 3 when the acceptance checks fail
  harness::RunOptions run;
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::vector<std::uint32_t> parse_list(const std::string& s, const char* what) {
  std::vector<std::uint32_t> v;
  std::size_t i = 0;
  while (i <= s.size()) {
    const std::size_t j = std::min(s.find(',', i), s.size());
    const std::string item = s.substr(i, j - i);
    std::size_t used = 0;
    unsigned long n = 0;
    try {
      n = std::stoul(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (item.empty() || used != item.size() || n == 0 || n > 1024)
      throw Error(
          fmt::format("{} '{}': expected a comma-separated list of counts 1..1024, "
                      "got '{}'",
                      what, s, item));
    v.push_back(std::uint32_t(n));
    i = j + 1;
  }
  return v;
}

std::string mib(std::uint64_t b) { return fmt::format("{:.1f}", double(b) / double(1 << 20)); }

// --key-on: host, device (the GPU makes the key's points where the CUDA stages use them), or auto:
// the device from 2^20 up when both the GPU and the G2 stage run on a GPU. Says why not when
// "device" cannot be had.
template <class E>
harness::KeyPoints key_points(const BenchArgs& a, unsigned k, const pipeline::Backend<E>& be) {
  if (a.key_on != "host" && a.key_on != "device" && a.key_on != "auto")
    throw Error(fmt::format("--key-on '{}': expected host, device or auto", a.key_on));
  if (a.key_on == "host" || (a.key_on == "auto" && k < 20)) return harness::KeyPoints::host;
  const bool device = be.name == "cuda" && be.g2().name() == "cuda";
  if (!device && a.key_on == "device")
    throw Error(fmt::format(
        "--key-on device: the key's points are made on the GPU only for GPU and G2 stages on a "
        "GPU (--backend cuda --g2-on gpu); these stages are {}",
        be.describe()));
  return device ? harness::KeyPoints::device : harness::KeyPoints::host;
}

const char* key_points_name(harness::KeyPoints w) {
  return w == harness::KeyPoints::device ? "made on the GPU" : "made on the host";
}

// Sweep mode: one circuit and key, then one engine run per (pw, jobs), each with its own files in
// OUT/pw<p>-j<j>/ (report.txt and run_jobs's files), one table row per run on stdout and in
// OUT/sweep.md, and the acceptance checks at the end.
template <class E>
void run_sweep(BenchArgs& a, unsigned k) {
  const auto pws =
      parse_list(a.sweep_pw.empty() ? std::to_string(a.run.engine.synthesis_workers) : a.sweep_pw,
                 "--sweep-pw");
  const auto jobs =
      parse_list(a.sweep_jobs.empty() ? std::to_string(a.run.jobs) : a.sweep_jobs, "--sweep-jobs");
  const auto gws =
      parse_list(a.sweep_gw.empty() ? std::to_string(a.run.engine.gpu_workers) : a.sweep_gw,
                 "--sweep-gw");
  for (auto pw : pws)
    for (auto gw : gws) {
      auto e = a.run.engine;
      e.synthesis_workers = pw;
      e.gpu_workers = gw;
      e.check();  // the thread limits, with every other stage's workers
    }
  if (a.run.out_dir.empty()) throw Error("--sweep-pw/--sweep-jobs need --out DIR");
  std::optional<std::pair<std::uint32_t, std::uint32_t>> held_cell;
  if (!a.sweep_held.empty()) {
    const auto colon = a.sweep_held.find(':');
    if (colon == std::string::npos)
      throw Error(fmt::format("--sweep-held '{}': expected PW:JOBS (e.g. 8:4)", a.sweep_held));
    const auto pw = parse_list(a.sweep_held.substr(0, colon), "--sweep-held PW");
    const auto jj = parse_list(a.sweep_held.substr(colon + 1), "--sweep-held JOBS");
    if (pw.size() != 1 || jj.size() != 1)
      throw Error(fmt::format("--sweep-held '{}': expected one PW:JOBS", a.sweep_held));
    if (a.run.rss_cap == 0)
      throw Error("--sweep-held: the held policy bounds nothing; give --rss-cap SIZE below the "
                  "machine's memory");
    auto e = a.run.engine;
    e.synthesis_workers = pw[0];
    e.check();
    held_cell = std::pair{pw[0], jj[0]};
  }
  const std::string out = a.run.out_dir;
  std::filesystem::create_directories(out);
  const auto t0 = std::chrono::steady_clock::now();
  // One backend for every run: the devices are opened, and the key made or uploaded, once.
  const pipeline::Backend<E> be = pipeline::make_backend<E>(a.run.backend);
  const harness::KeyPoints where = key_points<E>(a, k, be);
  std::fprintf(stderr,
               "sweep: building the %s circuit at 2^%u over %s and its development key (points %s)...\n",
               a.circuit.c_str(), k, std::string(E::kName).c_str(), key_points_name(where));
  auto bc = harness::make_bench_circuit<E>(a.circuit, k, a.run.partitions, where);
  std::fprintf(stderr, "sweep: %s ready in %.1f s\n", bc.name.c_str(), seconds_since(t0));
  const std::string head =
      "| run | pw | jobs | partitions | wall s | partitions/s | stage means s (synth / gpu / g2) "
      "| life MiB | workers' scratch MiB | work budget MiB | books peak MiB | peak RSS − baseline MiB "
      "| predicted peak MiB | peak RSS MiB | measured / predicted | RSS beyond books (max) MiB "
      "| after drain − baseline MiB | verdict |\n"
      "|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n";
  std::printf("%s", head.c_str());
  std::fflush(stdout);
  struct Row {
    std::uint32_t pw, gw, j;
    double pps, ratio;
    bool under_budget;
    std::string verdict, line;
  };
  std::vector<Row> rows;  // every run, in the order they ran
  std::string backend;
  const std::uint32_t reps = std::max<std::uint32_t>(1, a.sweep_reps);
  // Repetitions interleaved (every cell once, then again), so that a slow spell of the machine
  // falls on several cells' runs rather than on all runs of one cell.
  // One engine run with its files in OUT/<name>/, its table row printed as it ends.
  auto run_cell = [&](harness::RunOptions ro, std::uint32_t pw, std::uint32_t gw, std::uint32_t j,
                      const std::string& name) {
    ro.engine.synthesis_workers = pw;
    ro.engine.gpu_workers = gw;
    ro.jobs = j;
    ro.out_dir = (std::filesystem::path(out) / name).string();
    ro.title = fmt::format("bench {}: pw={} gw={} g2w={} jobs={}x{}{}", bc.name, pw,
                           ro.engine.gpu_workers, ro.engine.g2_workers, j, ro.partitions,
                           ro.engine.policy == mem::Policy::held_until_finalize
                               ? ", policy held until finalize"
                               : "");
    auto res = harness::run_jobs<E>(ro, [&](std::uint32_t jj) { return bc.job(jj); }, be);
    backend = res.backend;
    util::write_file_atomic((std::filesystem::path(ro.out_dir) / "report.txt").string(),
                            harness::format_report(ro, res));
    auto mean = [](const pipeline::StageStats& st) {
      return st.items ? st.busy_s / double(st.items) : 0.0;
    };
    const auto& v = res.verdict;
    const double ratio = res.predicted_peak ? double(v.peak) / double(res.predicted_peak) : 0;
    const std::uint64_t work = v.peak > v.baseline ? v.peak - v.baseline : 0;
    const bool under = ro.process_budget ? res.within_process_budget
                                         : !res.work_budget || work <= res.work_budget;
    const std::string line = fmt::format(
        "| [{}]({}/memory.svg) | {} | {} | {} | {:.2f} | {:.2f} | {:.3f} / {:.3f} / {:.3f} "
        "| {} | {} | {} | {} | {} | {} | {} | {:.3f} | {} | {} | {} |\n",
        name, name, pw, j, res.partitions, res.wall_s, res.partitions_per_s,
        mean(res.stats.synthesis), mean(res.stats.gpu), mean(res.stats.g2),
        mib(res.cost.life()), mib(res.worker_scratch),
        res.work_budget ? mib(res.work_budget) : "none", mib(res.books_peak), mib(work),
        mib(res.predicted_peak), mib(v.peak), ratio,
        mib(std::uint64_t(std::max<std::int64_t>(0, v.unaccounted_max))),
        fmt::format("{:.1f}", double(v.drain_delta) / double(1 << 20)),
        res.stopped_at_rss ? fmt::format("{} (stopped at the RSS cap)", mem::verdict_name(v.verdict))
                           : std::string(mem::verdict_name(v.verdict)));
    std::printf("%s", line.c_str());
    std::fflush(stdout);
    return std::pair{Row{pw, gw, j, res.partitions_per_s, ratio, under,
                         std::string(mem::verdict_name(v.verdict)), line},
                     res};
  };
  // A cell's name: pw<p>-j<j>, with -gw<g> after pw when GPU workers are swept too.
  auto cell_name = [&](std::uint32_t pw, std::uint32_t gw, std::uint32_t j) {
    return gws.size() > 1 ? fmt::format("pw{}-gw{}-j{}", pw, gw, j) : fmt::format("pw{}-j{}", pw, j);
  };
  for (std::uint32_t rep = 0; rep < reps; ++rep)
    for (std::uint32_t j : jobs)
      for (std::uint32_t gw : gws)
        for (std::uint32_t pw : pws)
          rows.push_back(run_cell(a.run, pw, gw, j,
                                  reps == 1 ? cell_name(pw, gw, j)
                                            : fmt::format("{}-r{}", cell_name(pw, gw, j), rep + 1))
                             .first);
  // The reference design's policy beside the sweep (--sweep-held PW:JOBS): the same circuit and
  // key, the synthesis output held until finalize, no budget, stopped at --rss-cap.
  std::string held, held_line;
  if (held_cell) {
    harness::RunOptions ro = a.run;
    ro.engine.policy = mem::Policy::held_until_finalize;
    ro.engine.host_budget = 0;
    ro.process_budget = 0;
    ro.engine.g2_queue = ro.engine.final_queue = pipeline::EngineConfig::kMaxQueueBound;
    const auto [row, res] =
        run_cell(ro, held_cell->first, a.run.engine.gpu_workers, held_cell->second,
                 fmt::format("held-pw{}-j{}", held_cell->first, held_cell->second));
    held_line = row.line;
    const auto& v = res.verdict;
    held = fmt::format(
        "held until finalize (pw={} j={}, no budget, RSS cap {}): peak RSS {} ({} above the "
        "baseline {}), {:.2f} partitions/s, G2 backlog max {}, finalize backlog max {}{}\n",
        row.pw, row.j, mem::format_bytes(ro.rss_cap), mem::format_bytes(v.peak),
        mem::format_bytes(v.peak > v.baseline ? v.peak - v.baseline : 0),
        mem::format_bytes(v.baseline), row.pps, res.stats.max_g2_queue,
        res.stats.max_final_queue,
        res.stopped_at_rss ? fmt::format("; stopped at RSS {}", mem::format_bytes(*res.stopped_at_rss))
                           : std::string());
  }
  // Per cell the run of median throughput (of an even count, the faster middle one).
  std::vector<Row> cells;
  std::string table = head;
  for (std::uint32_t j : jobs)
    for (std::uint32_t gw : gws)
      for (std::uint32_t pw : pws) {
        std::vector<Row> runs;
        for (const Row& r : rows)
          if (r.j == j && r.gw == gw && r.pw == pw) runs.push_back(r);
        std::sort(runs.begin(), runs.end(), [](const Row& x, const Row& y) { return x.pps < y.pps; });
        cells.push_back(runs[runs.size() / 2]);
        table += cells.back().line;
      }
  table += held_line;  // the held policy's run, beside (not in the checks)
  if (reps > 1) {
    std::string each;
    for (const Row& c : cells) {
      each += gws.size() > 1 ? fmt::format("- pw={} gw={} j={}:", c.pw, c.gw, c.j)
                             : fmt::format("- pw={} j={}:", c.pw, c.j);
      for (const Row& r : rows)
        if (r.j == c.j && r.gw == c.gw && r.pw == c.pw) each += fmt::format(" {:.2f}", r.pps);
      each += fmt::format(" partitions/s (median {:.2f})\n", c.pps);
    }
    table = fmt::format("Median of {} runs per cell (the row of the median run):\n\n{}\n{}", reps,
                        table, each);
    std::printf("\n%s", table.c_str());
  }
  // The acceptance checks: the memory ones on every run, throughput per cell against the pw = 1
  // cell of the same jobs and GPU workers.
  std::string checks;
  // measured / predicted in [0.9, 1] in every run: the model is an upper bound that is not loose.
  double lowest = 1e9, highest = 0;
  bool all_under = true, all_bounded = true, never_slower = true;
  for (const Row& r : rows) {
    lowest = std::min(lowest, r.ratio);
    highest = std::max(highest, r.ratio);
    all_under &= r.under_budget;
    all_bounded &= r.verdict == "bounded";
  }
  for (const Row& r : cells)
    for (const Row& base : cells)
      if (base.j == r.j && base.gw == r.gw && base.pw == 1 && r.pps < base.pps) {
        never_slower = false;
        checks += fmt::format("- pw={} gw={} j={}: {:.3f} partitions/s, {:.1f} % below pw=1's {:.3f}\n",
                              r.pw, r.gw, r.j, r.pps, 100.0 * (1.0 - r.pps / base.pps), base.pps);
      }
  const bool ratio_ok = lowest >= 0.9 && highest <= 1.0;
  checks = fmt::format(
               "backend: {}\ncircuit: {}\nruns: {}, every proof verified (by the engine and "
               "again by the run)\n{} in every run: {}\n"
               "measured/predicted peak: lowest {:.3f}, highest {:.3f} (target: every run in [0.90, 1]): {}\n"
               "verdict bounded (RSS back to baseline) in every run: {}\n"
               "throughput never below the pw=1 run of the same jobs and gw: {}\n",
               backend, bc.name, rows.size(),
               a.run.process_budget
                   ? fmt::format("peak RSS <= the process budget {}", mem::format_bytes(a.run.process_budget))
                   : std::string("peak RSS - baseline <= budget"),
               all_under ? "yes" : "NO", lowest, highest, ratio_ok ? "yes" : "NO",
               all_bounded ? "yes" : "NO", never_slower ? "yes" : "NO") +
           checks + held;
  std::printf("\n%s", checks.c_str());
  std::string md = table + "\n" + checks;
  if (reps > 1) {
    md += "\nEvery run, in the order they ran:\n\n" + head;
    for (const Row& r : rows) md += r.line;
  }
  util::write_file_atomic((std::filesystem::path(out) / "sweep.md").string(), md);
  if (a.check && !(all_under && all_bounded && never_slower && ratio_ok))
    throw VerdictFailed(fmt::format(
        "bench: the sweep's acceptance checks failed (budget kept: {}, measured/predicted in "
        "[0.90, 1]: {}, bounded: {}, never below pw=1: {}); see {}/sweep.md",
        all_under ? "yes" : "NO", ratio_ok ? "yes" : "NO", all_bounded ? "yes" : "NO",
        never_slower ? "yes" : "NO", out));
}

// --curve's value: the names the project and snarkjs use for the two curves.
ec::CurveId parse_curve(const std::string& s) {
  if (s == "bls12-381" || s == "bls12_381" || s == "bls12381") return ec::CurveId::kBls12_381;
  if (s == "bn254" || s == "bn128" || s == "alt_bn128") return ec::CurveId::kBn254;
  throw Error(fmt::format("--curve '{}': expected bls12-381 or bn254 (snarkjs: bls12381, bn128)", s));
}

// A benchmark's jobs and partitions are built in memory up front: bounded before anything is.
constexpr std::uint32_t kMaxBenchPartitions = 4096;
constexpr std::uint32_t kMaxBenchJobs = 1024;

template <class E>
void run_bench(BenchArgs& a, bool demo) {
  const unsigned k = harness::parse_log2_size(a.size, "--size");
  // Every count is checked before the circuit and key are built (seconds to minutes).
  a.run.engine.check();
  if (a.run.partitions == 0 || a.run.partitions > kMaxBenchPartitions)
    throw Error(fmt::format("--partitions {}: expected 1..{}", a.run.partitions, kMaxBenchPartitions));
  if (a.run.jobs == 0 || a.run.jobs > kMaxBenchJobs)
    throw Error(fmt::format("--jobs {}: expected 1..{}", a.run.jobs, kMaxBenchJobs));
  if (!a.run.out_dir.empty()) util::OutputCheck(demo ? "demo" : "bench").output_dir(a.run.out_dir).check();
  const bool sweep = !a.sweep_pw.empty() || !a.sweep_jobs.empty() || !a.sweep_gw.empty() ||
                     !a.sweep_held.empty() ||
                     a.sweep_reps > 1;
  if (!a.budget.empty() && !a.process_budget.empty())
    throw Error("--budget and --process-budget: give one (--process-budget includes the work)");
  if (!a.budget.empty()) a.run.engine.host_budget = mem::parse_size(a.budget, "--budget");
  if (!a.process_budget.empty())
    a.run.process_budget = mem::parse_size(a.process_budget, "--process-budget");
  {
    const auto p = mem::parse_policy(a.policy);
    if (!p) throw Error(fmt::format("--policy '{}': expected splitprove or held", a.policy));
    a.run.engine.policy = *p;
    if (*p == mem::Policy::held_until_finalize)  // that design bounds no backlog
      a.run.engine.g2_queue = a.run.engine.final_queue = pipeline::EngineConfig::kMaxQueueBound;
  }
  if (!a.rss_cap.empty()) a.run.rss_cap = mem::parse_size(a.rss_cap, "--rss-cap");
  a.run.gpu_delay = std::chrono::duration_cast<std::chrono::milliseconds>(
      mem::parse_duration(a.gpu_delay, "--gpu-delay"));
  a.run.g2_delay = std::chrono::duration_cast<std::chrono::milliseconds>(
      mem::parse_duration(a.g2_delay, "--g2-delay"));
#ifdef SPLITPROVE_HAVE_CUDA
  cuda::install_pipeline_backend();  // `--backend auto` then picks it when a GPU is present
#endif
  if (sweep) return run_sweep<E>(a, k);
  const auto t0 = std::chrono::steady_clock::now();
  const pipeline::Backend<E> be = pipeline::make_backend<E>(a.run.backend);
  const harness::KeyPoints where = key_points<E>(a, k, be);
  std::fprintf(stderr,
               "%s: building the %s circuit at 2^%u over %s and its development key (points %s)...\n",
               demo ? "demo" : "bench", a.circuit.c_str(), k, std::string(E::kName).c_str(),
               key_points_name(where));
  auto bc = harness::make_bench_circuit<E>(a.circuit, k, a.run.partitions, where);
  std::fprintf(stderr,
               "%s: %s ready in %.1f s (%u variables, %zu B-dense); proving %u job(s) of "
               "%u partitions...\n",
               demo ? "demo" : "bench", bc.name.c_str(), seconds_since(t0), bc.key->pk->n_vars,
               bc.key->g2.size(), a.run.jobs, a.run.partitions);
  a.run.title = fmt::format("{} {}: pw={} gw={} g2w={} jobs={}x{}", demo ? "demo" : "bench",
                            bc.name, a.run.engine.synthesis_workers, a.run.engine.gpu_workers,
                            a.run.engine.g2_workers, a.run.jobs, a.run.partitions);
  auto rep = harness::run_jobs<E>(a.run, [&](std::uint32_t j) { return bc.job(j); }, be);
  std::printf("%s", harness::format_report(a.run, rep).c_str());
  if (a.check) {
    const double ratio =
        rep.predicted_peak ? double(rep.verdict.peak) / double(rep.predicted_peak) : 0;
    const bool bounded = rep.verdict.verdict == mem::VerdictClass::bounded;
    if (!bounded || ratio > 1.0 || ratio < 0.9)
      throw VerdictFailed(fmt::format("{}: verdict {} (bounded expected), measured/predicted peak "
                                      "{:.3f} (0.90 to 1 expected)",
                                      demo ? "demo" : "bench",
                                      mem::verdict_name(rep.verdict.verdict), ratio));
  }
}

void run_bench_any(BenchArgs& a, bool demo) {
  ec::with_engine(parse_curve(a.curve), [&](auto e) { run_bench<decltype(e)>(a, demo); });
}

void add_engine_options(CLI::App* c, BenchArgs& a) {
  auto& e = a.run.engine;
  c->add_option("--synth-workers,--pw", e.synthesis_workers, "synthesis workers")
      ->capture_default_str();
  c->add_option("--gpu-workers,--gw", e.gpu_workers, "GPU-stage workers per device")->capture_default_str();
  c->add_option("--g2-workers", e.g2_workers, "G2-stage workers")->capture_default_str();
  c->add_option("--finalizers", e.finalizers, "finalizers")->capture_default_str();
  c->add_option("--gpu-queue", e.gpu_queue, "bound of the GPU queue")->capture_default_str();
  c->add_option("--g2-queue", e.g2_queue, "bound of the G2 backlog")->capture_default_str();
  c->add_option("--final-queue", e.final_queue, "bound of the finalize backlog")
      ->capture_default_str();
  c->add_flag("!--no-split", e.split_g2,
              "run the G2 stage inside the GPU worker, after the GPU stage (comparison: no split)");
  c->add_flag("!--no-recycle", e.recycle_buffers,
              "map every partition buffer fresh and unmap it when it dies (comparison: no buffer "
              "pool)");
  c->add_option("--budget", a.budget,
                "host memory budget of the work, above what the process holds before it (e.g. "
                "8GiB; default: none)");
  c->add_option("--process-budget", a.process_budget,
                "one host memory budget for the whole process (e.g. 100GiB): the key, the circuit "
                "and the runtime held at the start are measured, the work gets the rest, and peak "
                "RSS is checked against it");
  c->add_flag("!--no-buffer-warmup", a.run.warm_buffers,
              "do not make the buffers of pw + gw partitions before the work (they are then "
              "faulted in and pinned by the first partitions)");
  c->add_option("--jobs,-j", a.run.jobs, "jobs submitted at once")->capture_default_str();
  c->add_option("--partitions", a.run.partitions, "partitions per job")->capture_default_str();
  c->add_option("--circuit", a.circuit, "benchmark circuit: porep or chain")->capture_default_str();
  c->add_option("--curve", a.curve, "the benchmark circuit's curve: bls12-381 or bn254")
      ->capture_default_str();
  c->add_option("--out", a.run.out_dir, "directory for memory.svg, waterfall.svg, the timeline");
  c->add_option("--backend", a.run.backend.backend,
                "GPU-stage backend: auto (CUDA when a GPU is present), cpu or cuda")
      ->capture_default_str();
  c->add_option("--g2-on", a.run.backend.g2_on,
                "where the G2 stage runs: auto (the GPU with the cuda backend), cpu or gpu")
      ->capture_default_str();
  add_device_options(c, a.run.backend.devices, a.run.backend.logical_devices);
  c->add_option("--key-on", a.key_on,
                "where the development key's points are made: host, device (on the GPU, where "
                "the CUDA stages use them: seconds instead of minutes at 2^24, and no host copy), "
                "or auto (device from 2^20 up when the GPU and G2 stages run on a GPU)")
      ->capture_default_str();
  c->add_option("--policy", a.policy,
                "splitprove, or held: the reference design's policy for comparison (z, a, b "
                "live until the proof is finalized, unbounded G2 and finalize backlogs); run it "
                "with --rss-cap")
      ->capture_default_str();
  c->add_option("--rss-cap", a.rss_cap,
                "cancel the jobs when the process RSS passes this (e.g. 100GiB): a comparison run "
                "that accumulates cannot take the machine");
  c->add_option("--gpu-delay", a.gpu_delay,
                "fixed time added to each GPU stage, standing for device time (e.g. 200ms)");
  c->add_option("--g2-delay", a.g2_delay,
                "fixed time added to each G2 stage, standing for a slow G2 device (e.g. 400ms)");
  c->add_flag("--check", a.check,
              "exit 3 when the checks fail: a run's verdict is not bounded or its measured / "
              "predicted peak is outside [0.90, 1]; a sweep's acceptance lines (budget, prediction, bounded, never "
              "below pw=1)");
}

Register reg([](CLI::App& app) {
  auto demo_args = std::make_shared<BenchArgs>();
  auto* demo = app.add_subcommand(
      "demo",
      "The main job: a PoRep-shaped circuit, jobs of 10 partitions through the pipeline "
      "engine, every proof verified, peak memory against the model's prediction");
  demo_args->size = "2^12";
  demo_args->run.jobs = 2;
  demo_args->run.engine.synthesis_workers = 2;
  // A warm-up job of two partitions first, as `bench pipeline` runs: the steady state is measured,
  // and the runtime's own growth (allocator, thread stacks) is measured there for the prediction.
  demo_args->run.warmup_partitions = 2;
  demo_args->run.out_dir = "splitprove-demo";
  demo->add_option("--size", demo_args->size, "circuit size 2^k")->capture_default_str();
  add_engine_options(demo, *demo_args);
  demo->callback([demo_args] { run_bench_any(*demo_args, true); });

  auto* bench = app.add_subcommand("bench", "End-to-end benchmarks");
  bench->require_subcommand(1);
  auto bench_args = std::make_shared<BenchArgs>();
  auto* pipe = bench->add_subcommand(
      "pipeline",
      "Jobs of partitions through the engine: throughput, stage times, peak RSS, "
      "predicted peak, verdict, timeline and SVGs");
  pipe->add_option("--size", bench_args->size, "circuit size 2^k")->capture_default_str();
  add_engine_options(pipe, *bench_args);
  bench_args->run.warmup_partitions = 2;
  pipe->add_option("--warmup", bench_args->run.warmup_partitions,
                   "partitions of a warm-up job proved first, alone (device pools and scratch; "
                   "the key is made ready on the devices before it): the cold start, reported "
                   "apart; 0: none")
      ->check(CLI::Range(0u, 64u))
      ->capture_default_str();
  pipe->add_option("--sweep-pw", bench_args->sweep_pw,
                   "sweep: synthesis workers to run, e.g. 1,2,4,8,16 (one circuit and key; one "
                   "run per pw x jobs; files in OUT/pw<p>-j<j>/, the table in OUT/sweep.md)");
  pipe->add_option("--sweep-jobs", bench_args->sweep_jobs, "sweep: jobs in flight, e.g. 1,4,8");
  pipe->add_option("--sweep-gw", bench_args->sweep_gw,
                   "sweep: GPU-stage workers per device to run, e.g. 1,2 (one run per pw x gw x "
                   "jobs; files in OUT/pw<p>-gw<g>-j<j>/ when more than one)");
  pipe->add_option("--sweep-held", bench_args->sweep_held,
                   "sweep: after the sweep, one run of PW:JOBS with the synthesis output held "
                   "until finalize and no budget (the reference design; needs --rss-cap), in "
                   "OUT/held-pw<p>-j<j>/, its row and peak beside the sweep's");
  pipe->add_option("--sweep-reps", bench_args->sweep_reps,
                   "sweep: runs of each cell, interleaved (every cell once, then again); files in "
                   "OUT/pw<p>-j<j>-r<i>/; the table gives each cell's run of median throughput, "
                   "the memory checks hold for every run")
      ->check(CLI::Range(1, 99))
      ->capture_default_str();
  pipe->callback([bench_args] { run_bench_any(*bench_args, false); });
});

}  // namespace
}  // namespace splitprove::cli

// tool_memsim: the accumulation simulator (src/mem/sim.hpp) as a program.
//
//   tool_memsim [options] --out DIR        one scenario -> DIR/{timeline.csv,timeline.jsonl,
//                                          verdict.txt,verdict.json,memory.svg,summary.json}
//   tool_memsim --sweep --out DIR          policy × pw × jobs, plus runs under a budget smaller
//                                          than the held policy needs -> DIR/<run>/...,
//                                          DIR/sweep.md
//
// The default scenario (policy held, 256 MiB partitions, pw=2, one job of 10 partitions in flight)
// peaks near 2.5 GiB; the sweep uses 64 MiB partitions and peaks under 2 GiB.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <string>
#include <vector>

#include "harness/sim.hpp"
#include "mem/units.hpp"
#include "splitprove/error.hpp"

using namespace splitprove;
using namespace splitprove::mem;
using namespace splitprove::harness;

namespace {

struct Row {
  std::string name;
  SimConfig cfg;
  SimResult res;
};

std::string pct(double a, double b) {
  return b > 0 ? fmt::format("{:+.0f}%", (a / b - 1) * 100) : "-";
}

std::string table(const std::vector<Row>& rows) {
  std::string s =
      "| run | policy | pw | jobs | budget | baseline | peak RSS | above baseline | model (needs) "
      "| peak vs model | held-policy bound | books peak | verdict | throughput (partitions/s) |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const Row& r : rows) {
    const Verdict& v = r.res.verdict;
    std::uint64_t above = v.peak > v.baseline ? v.peak - v.baseline : 0;
    std::uint64_t model = v.model_work_bytes.value_or(0);
    s += fmt::format(
        "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.2f} |\n", r.name,
        policy_name(r.cfg.policy), r.cfg.pipeline.synthesis_workers, r.cfg.pipeline.jobs,
        r.cfg.pipeline.budget ? format_bytes(r.cfg.pipeline.budget) : "none",
        format_bytes(v.baseline), format_bytes(v.peak), format_bytes(above), format_bytes(model),
        pct(double(above), double(model)),
        r.cfg.policy == Policy::held_until_finalize ? format_bytes(r.res.policy_bound.held_bytes)
                                                    : "-",
        format_bytes(r.res.books_peak), verdict_name(v.verdict), r.res.throughput);
  }
  return s;
}

Row run_one(const std::string& name, const SimConfig& c, const std::string& dir,
            std::size_t max_samples, bool jsonl) {
  std::fprintf(stderr, "memsim: %s: %s\n", name.c_str(), describe(c).c_str());
  Row r{name, c, run_simulation(c)};
  write_sim_outputs(c, r.res, dir, max_samples, jsonl);
  std::fprintf(stderr, "memsim: %s: peak %s, verdict %s, %.2f partitions/s\n", name.c_str(),
               format_bytes(r.res.verdict.peak).c_str(),
               std::string(verdict_name(r.res.verdict.verdict)).c_str(), r.res.throughput);
  return r;
}

}  // namespace

static int run(int argc, char** argv) {
  CLI::App app{"splitprove memory accumulation simulator"};
  SimConfig c;
  c.policy = Policy::held_until_finalize;
  c.total_jobs = 3;
  c.pipeline.synthesis_workers = 2;
  std::string policy = "held", partition = "256MiB", budget, out = "memsim-out";
  std::string t_synth = "300ms", t_gpu = "120ms", t_g2 = "360ms", t_final = "20ms";
  std::string interval = "100ms", settle = "400ms", sweep_partition = "64MiB";
  std::size_t max_samples = 400;
  bool sweep = false, no_jsonl = false;
  auto& p = c.pipeline;
  app.add_option("--policy", policy, "held (reference design) or splitprove")
      ->capture_default_str();
  app.add_option("--partition-bytes", partition, "synthesis output per partition (a,b,c + z)")
      ->capture_default_str();
  app.add_option("--pw", p.synthesis_workers, "synthesis workers")->capture_default_str();
  app.add_option("--gw", p.gpu_workers, "GPU workers")->capture_default_str();
  app.add_option("--g2-workers", p.g2_workers, "G2 workers")->capture_default_str();
  app.add_option("--finalizers", p.finalizers, "finalizers")->capture_default_str();
  app.add_option("--gpu-queue", p.gpu_queue, "GPU queue bound")->capture_default_str();
  app.add_option("--g2-queue", p.g2_queue, "G2 backlog bound (splitprove policy)")
      ->capture_default_str();
  app.add_option("--final-queue", p.final_queue, "finalize backlog bound (splitprove policy)")
      ->capture_default_str();
  app.add_option("-j,--jobs", p.jobs, "jobs in flight")->capture_default_str();
  app.add_option("--total-jobs", c.total_jobs, "jobs to run")->capture_default_str();
  app.add_option("--partitions", p.partitions_per_job, "partitions per job")->capture_default_str();
  app.add_option("--budget", budget, "host memory budget (default: none)");
  app.add_option("--t-synth", t_synth)->capture_default_str();
  app.add_option("--t-gpu", t_gpu)->capture_default_str();
  app.add_option("--t-g2", t_g2)->capture_default_str();
  app.add_option("--t-final", t_final)->capture_default_str();
  app.add_option("--interval", interval, "sampling interval")->capture_default_str();
  app.add_option("--settle", settle, "idle time before and after the work")->capture_default_str();
  app.add_flag("--huge-pages", c.huge_pages, "madvise(MADV_HUGEPAGE) the buffers");
  app.add_option("-o,--out", out, "output directory")->capture_default_str();
  app.add_option("--max-csv-samples", max_samples, "downsample timeline.csv to at most this")
      ->capture_default_str();
  app.add_flag("--no-jsonl", no_jsonl, "do not write timeline.jsonl");
  app.add_flag("--sweep", sweep, "run the sweep (policy × pw × jobs, and budget runs)");
  app.add_option("--sweep-partition-bytes", sweep_partition)->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  try {
    auto pol = parse_policy(policy);
    if (!pol) throw Error(fmt::format("--policy: '{}': expected held or splitprove", policy));
    c.policy = *pol;
    p.partition = PartitionBytes::scaled(parse_size(partition, "--partition-bytes"));
    if (!budget.empty()) p.budget = parse_size(budget, "--budget");
    auto ms = [](const std::string& s, const char* what) {
      return std::chrono::duration_cast<std::chrono::milliseconds>(parse_duration(s, what));
    };
    c.t_synth = ms(t_synth, "--t-synth");
    c.t_gpu = ms(t_gpu, "--t-gpu");
    c.t_g2 = ms(t_g2, "--t-g2");
    c.t_final = ms(t_final, "--t-final");
    c.sample_interval = ms(interval, "--interval");
    c.settle = ms(settle, "--settle");

    if (!sweep) {
      Row r = run_one("run", c, out, max_samples, !no_jsonl);
      std::printf("%s\n%s", describe(c).c_str(), format_report(r.res.verdict).c_str());
      std::printf("throughput: %.2f partitions/s over %.2f s; outputs in %s/\n", r.res.throughput,
                  r.res.work_seconds, out.c_str());
      return 0;
    }

    // ---- the sweep ------------------------------------------------------------------------------
    SimConfig base = c;
    base.pipeline.partition =
        PartitionBytes::scaled(parse_size(sweep_partition, "--sweep-partition-bytes"));
    base.total_jobs = 4;
    base.pipeline.budget = 0;
    std::vector<Row> rows;
    for (Policy pol2 : {Policy::held_until_finalize, Policy::splitprove})
      for (std::uint32_t pw : {1u, 2u, 4u})
        for (std::uint32_t j : {1u, 2u, 3u}) {
          SimConfig s = base;
          s.policy = pol2;
          s.pipeline.synthesis_workers = pw;
          s.pipeline.jobs = j;
          std::string name = fmt::format("{}-pw{}-j{}", policy_name(pol2), pw, j);
          rows.push_back(run_one(name, s, fmt::format("{}/{}", out, name), max_samples, !no_jsonl));
        }
    // Under budgets smaller than what the held policy reaches at pw=4, j=3 (in units of one
    // partition's life cost under the splitprove policy).
    const std::uint64_t life = life_cost(base.pipeline.partition, Policy::splitprove);
    for (std::uint64_t parts : {8u, 4u, 2u})
      for (Policy pol2 : {Policy::held_until_finalize, Policy::splitprove}) {
        SimConfig s = base;
        s.policy = pol2;
        s.pipeline.synthesis_workers = 4;
        s.pipeline.jobs = 3;
        s.pipeline.budget = parts * life;
        std::string name = fmt::format("{}-pw4-j3-budget{}", policy_name(pol2), parts);
        rows.push_back(run_one(name, s, fmt::format("{}/{}", out, name), max_samples, !no_jsonl));
      }
    std::string t = table(rows);
    std::ofstream f(out + "/sweep.md");
    std::time_t now = std::time(nullptr);
    char date[64];
    std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
    f << "base: " << describe(base) << "\n\ndate: " << date << "\n\n" << t;
    std::printf("%s", t.c_str());
    return 0;
  } catch (const Error& e) {
    std::fprintf(stderr, "tool_memsim: error: %s\n", e.what());
    return 1;
  }
}

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tool_memsim: internal error: %s\n", e.what());
    return 2;
  }
}

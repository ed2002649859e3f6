// The pipeline commands:
//   splitprove demo                     the main job: jobs of 10 partitions of a benchmark circuit
//                                       through the engine, every proof verified, memory measured
//   splitprove bench pipeline --size 2^k --partitions 10 --jobs j --synth-workers pw
//                             --gpu-workers gw --g2-workers n --finalizers n --budget 8GiB --out
//                             DIR
// Thin: options in, pipeline::run_jobs, the report out.
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "cli/bench_circuits.hpp"
#include "cli/command.hpp"
#include "mem/units.hpp"
#include "pipeline/run.hpp"
#include "splitprove/error.hpp"
#ifdef SPLITPROVE_HAVE_CUDA
#include "cuda/stage.hpp"
#endif

namespace splitprove::cli {
namespace {

using E = zk::Bls12_381;

struct BenchArgs {
  std::string size = "2^12", circuit = "porep", budget, out, gpu_delay = "0", g2_delay = "0";
  pipeline::RunOptions run;
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void run_bench(BenchArgs& a, bool demo) {
  const unsigned k = parse_log2_size(a.size, "--size");
  if (!a.budget.empty()) a.run.engine.host_budget = mem::parse_size(a.budget, "--budget");
  a.run.gpu_delay = std::chrono::duration_cast<std::chrono::milliseconds>(
      mem::parse_duration(a.gpu_delay, "--gpu-delay"));
  a.run.g2_delay = std::chrono::duration_cast<std::chrono::milliseconds>(
      mem::parse_duration(a.g2_delay, "--g2-delay"));
#ifdef SPLITPROVE_HAVE_CUDA
  cuda::install_pipeline_backend();  // `--backend auto` then picks it when a GPU is present
#endif
  const auto t0 = std::chrono::steady_clock::now();
  std::fprintf(stderr, "%s: building the %s circuit at 2^%u and its development key...\n",
               demo ? "demo" : "bench", a.circuit.c_str(), k);
  auto bc = make_bench_circuit<E>(a.circuit, k, a.run.partitions);
  std::fprintf(stderr,
               "%s: %s ready in %.1f s (%u variables, %zu B-dense); proving %u job(s) of "
               "%u partitions...\n",
               demo ? "demo" : "bench", bc.name.c_str(), seconds_since(t0), bc.key->pk->n_vars,
               bc.key->g2.size(), a.run.jobs, a.run.partitions);
  a.run.title = fmt::format("{} {}: pw={} gw={} g2w={} jobs={}x{}", demo ? "demo" : "bench",
                            bc.name, a.run.engine.synthesis_workers, a.run.engine.gpu_workers,
                            a.run.engine.g2_workers, a.run.jobs, a.run.partitions);
  auto rep = pipeline::run_jobs<E>(a.run, [&](std::uint32_t j) { return bc.job(j); });
  std::printf("%s", pipeline::format_report(a.run, rep).c_str());
}

void add_engine_options(CLI::App* c, BenchArgs& a) {
  auto& e = a.run.engine;
  c->add_option("--synth-workers,--pw", e.synthesis_workers, "synthesis workers")
      ->capture_default_str();
  c->add_option("--gpu-workers,--gw", e.gpu_workers, "GPU-stage workers")->capture_default_str();
  c->add_option("--g2-workers", e.g2_workers, "G2-stage workers")->capture_default_str();
  c->add_option("--finalizers", e.finalizers, "finalizers")->capture_default_str();
  c->add_option("--gpu-queue", e.gpu_queue, "bound of the GPU queue")->capture_default_str();
  c->add_option("--g2-queue", e.g2_queue, "bound of the G2 backlog")->capture_default_str();
  c->add_option("--final-queue", e.final_queue, "bound of the finalize backlog")
      ->capture_default_str();
  c->add_flag("!--no-split", e.split_g2,
              "run the G2 stage inside the GPU worker, after the GPU stage (comparison: no split)");
  c->add_option("--budget", a.budget, "host memory budget (e.g. 8GiB; default: none)");
  c->add_option("--jobs,-j", a.run.jobs, "jobs submitted at once")->capture_default_str();
  c->add_option("--partitions", a.run.partitions, "partitions per job")->capture_default_str();
  c->add_option("--circuit", a.circuit, "benchmark circuit: porep or chain")->capture_default_str();
  c->add_option("--out", a.run.out_dir, "directory for memory.svg, waterfall.svg, the timeline");
  c->add_option("--backend", a.run.backend.backend,
                "GPU-stage backend: auto (CUDA when a GPU is present), cpu or cuda")
      ->capture_default_str();
  c->add_option("--g2-on", a.run.backend.g2_on,
                "where the G2 stage runs: auto (the GPU with the cuda backend), cpu or gpu")
      ->capture_default_str();
  c->add_option("--gpu-delay", a.gpu_delay,
                "fixed time added to each GPU stage, standing for device time (e.g. 200ms)");
  c->add_option("--g2-delay", a.g2_delay,
                "fixed time added to each G2 stage, standing for a slow G2 device (e.g. 400ms)");
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
  demo_args->run.out_dir = "splitprove-demo";
  demo->add_option("--size", demo_args->size, "circuit size 2^k")->capture_default_str();
  add_engine_options(demo, *demo_args);
  demo->callback([demo_args] { run_bench(*demo_args, true); });

  auto* bench = app.add_subcommand("bench", "End-to-end benchmarks");
  bench->require_subcommand(1);
  auto bench_args = std::make_shared<BenchArgs>();
  auto* pipe = bench->add_subcommand(
      "pipeline",
      "Jobs of partitions through the engine: throughput, stage times, peak RSS, "
      "predicted peak, verdict, timeline and SVGs");
  pipe->add_option("--size", bench_args->size, "circuit size 2^k")->capture_default_str();
  add_engine_options(pipe, *bench_args);
  pipe->callback([bench_args] { run_bench(*bench_args, false); });
});

}  // namespace
}  // namespace splitprove::cli

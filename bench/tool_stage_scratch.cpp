// How much heap the pipeline's stages really allocate besides their inputs and outputs (their
// "scratch"), against the bound the engine reserves for it (zk::g1_stage_scratch_bytes,
// zk::g2_stage_scratch_bytes, the source's shape().scratch_bytes). Every operator new / delete of
// this program is counted (live bytes as malloc_usable_size reports them, and their peak); a
// stage's scratch is the peak of live heap bytes during the stage above the level before it.
// The partition's own buffers are mmap'd mem::Buffers and never touch the heap.
//   tool_stage_scratch [--circuit porep|chain] [--reps 2] 2^14 2^16 ...
#include <fmt/format.h>
#include <malloc.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "harness/bench_circuits.hpp"
#include "mem/units.hpp"
#include "pipeline/prover_impl.hpp"
#include "splitprove/error.hpp"
#include "util/parallel.hpp"
#include "ec/curves.hpp"

namespace {
std::atomic<std::int64_t> g_live{0}, g_peak{0};

void note_alloc(void* p) {
  const auto n = std::int64_t(malloc_usable_size(p));
  const std::int64_t now = g_live.fetch_add(n, std::memory_order_relaxed) + n;
  std::int64_t pk = g_peak.load(std::memory_order_relaxed);
  while (now > pk && !g_peak.compare_exchange_weak(pk, now, std::memory_order_relaxed)) {
  }
}
void* counted(std::size_t n, std::size_t align) {
  if (n == 0) n = 1;
  void* p = align > alignof(std::max_align_t)
                ? std::aligned_alloc(align, (n + align - 1) / align * align)
                : std::malloc(n);
  if (!p) throw std::bad_alloc();
  note_alloc(p);
  return p;
}
void uncounted(void* p) noexcept {
  if (!p) return;
  g_live.fetch_sub(std::int64_t(malloc_usable_size(p)), std::memory_order_relaxed);
  std::free(p);
}
}  // namespace

void* operator new(std::size_t n) { return counted(n, 0); }
void* operator new[](std::size_t n) { return counted(n, 0); }
void* operator new(std::size_t n, std::align_val_t a) { return counted(n, std::size_t(a)); }
void* operator new[](std::size_t n, std::align_val_t a) { return counted(n, std::size_t(a)); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept try {
  return counted(n, 0);
} catch (...) {
  return nullptr;
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept try {
  return counted(n, 0);
} catch (...) {
  return nullptr;
}
void operator delete(void* p) noexcept { uncounted(p); }
void operator delete[](void* p) noexcept { uncounted(p); }
void operator delete(void* p, std::size_t) noexcept { uncounted(p); }
void operator delete[](void* p, std::size_t) noexcept { uncounted(p); }
void operator delete(void* p, std::align_val_t) noexcept { uncounted(p); }
void operator delete[](void* p, std::align_val_t) noexcept { uncounted(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { uncounted(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { uncounted(p); }

using namespace splitprove;
using E = ec::Bls12_381;
using Fr = E::Fr;

namespace {

// Runs f and returns the peak of live heap bytes during it above the level before it.
template <class F>
std::int64_t heap_peak_of(F&& f) {
  const std::int64_t before = g_live.load();
  g_peak.store(before);
  f();
  return g_peak.load() - before;
}

std::string mib(double b) { return fmt::format("{:.2f}", b / (1024.0 * 1024.0)); }

}  // namespace

int main(int argc, char** argv) try {
  std::string circuit = "porep";
  int reps = 2;
  std::vector<unsigned> sizes;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--circuit" && i + 1 < argc) {
      circuit = argv[++i];
    } else if (a == "--reps" && i + 1 < argc) {
      reps = std::max(1, std::atoi(argv[++i]));
    } else {
      sizes.push_back(harness::parse_log2_size(a, "size"));
    }
  }
  if (sizes.empty()) sizes = {12, 14};
  std::printf("threads %zu; heap MiB: measured peak over %d reps / the engine's bound\n",
              util::num_threads(), reps);
  std::printf("%-14s %10s %10s %10s %10s %10s %10s\n", "circuit", "synth", "bound", "gpu", "bound",
              "g2", "bound");
  for (unsigned k : sizes) {
    auto bc = harness::make_bench_circuit<E>(circuit, k, 1);
    auto src = bc.source(0);
    const auto cost = pipeline::partition_cost<E>(src->shape(), *bc.key);
    pipeline::Prover<E> prover(bc.key, pipeline::cpu_gpu_stage<E>(), pipeline::cpu_g2_stage<E>());
    mem::MemoryBudget budget(std::uint64_t(1) << 40, "tool");
    std::int64_t synth = 0, gpu = 0, g2 = 0;
    for (int r = 0; r < reps; ++r) {
      std::optional<pipeline::Synthesized<E>> s;
      synth = std::max(synth, heap_peak_of([&] {
                         s.emplace(prover.synthesize(
                             *src, 0, cost, budget.reserve(cost.life(), mem::Tag::synthesis)));
                       }));
      std::optional<pipeline::PendingProof<E>> p;
      gpu = std::max(gpu, heap_peak_of([&] { p.emplace(prover.start(std::move(*s), cost)); }));
      s.reset();
      g2 = std::max(g2, heap_peak_of([&] { prover.run_g2(*p); }));
      auto proof = prover.finish(std::move(*p), "tool");
      (void)proof;
    }
    std::printf("%-14s %10s %10s %10s %10s %10s %10s\n", bc.name.c_str(), mib(synth).c_str(),
                mib(cost.synth_scratch).c_str(), mib(gpu).c_str(), mib(cost.g1_scratch).c_str(),
                mib(g2).c_str(), mib(cost.g2_scratch).c_str());
    std::fflush(stdout);
  }
} catch (const std::exception& e) {
  std::fprintf(stderr, "error: %s\n", e.what());
  return 1;
}

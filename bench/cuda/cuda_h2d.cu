// Host-to-device copies of one partition's inputs (4 buffers of 64 MiB: z, a, b, c of a 2^21
// partition) by the ways the pipeline's GPU stage could make them, quiet and under a synthesis-like
// load (threads streaming through memory on the other cores). Standalone:
//   nvcc -O2 -std=c++17 -arch=sm_90a bench/cuda_h2d.cu -o /tmp/cuda_h2d && /tmp/cuda_h2d [load_threads]
// Prints one line per method: median of 5 rounds, ms for all 256 MiB, and GB/s.
#include <cuda_runtime.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#define CHECK(x)                                                                     \
  do {                                                                               \
    cudaError_t e_ = (x);                                                            \
    if (e_ != cudaSuccess) {                                                         \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x,                 \
                   cudaGetErrorString(e_));                                          \
      std::exit(1);                                                                  \
    }                                                                                \
  } while (0)

namespace {
constexpr std::size_t kBuf = std::size_t(64) << 20;
constexpr int kBufs = 4;
constexpr int kRounds = 5;
using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
void* map_fresh(std::size_t n) {
  void* p = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) std::exit(2);
  return p;
}
// What synthesis does to a buffer: writes every element (the first touch faults the pages in).
void fill(void* p, std::size_t n, unsigned char v) { std::memset(p, v, n); }

// Background load: threads streaming through their own 256 MiB (read-modify-write), as synthesis
// does with several partitions in flight.
struct Load {
  std::atomic<bool> stop{false};
  std::vector<std::thread> ts;
  explicit Load(int n) {
    for (int i = 0; i < n; ++i)
      ts.emplace_back([this] {
        std::vector<std::uint64_t> v(std::size_t(32) << 20, 1);
        std::uint64_t x = 7;
        while (!stop.load(std::memory_order_relaxed))
          for (std::size_t j = 0; j < v.size(); j += 8) v[j] = v[j] * x + j, x += v[j] & 1;
      });
  }
  ~Load() {
    stop = true;
    for (auto& t : ts) t.join();
  }
};

void report(const char* what, std::vector<double> v) {
  const double m = median(v);
  std::printf("%-58s %8.2f ms  %6.1f GB/s\n", what, m, double(kBuf * kBufs) / (m * 1e6));
}
}  // namespace

int main(int argc, char** argv) {
  const int load_threads = argc > 1 ? std::atoi(argv[1]) : 14;
  CHECK(cudaSetDevice(0));
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  void* dev = nullptr;
  CHECK(cudaMalloc(&dev, kBuf * kBufs));
  auto dst = [&](int i) { return static_cast<char*>(dev) + std::size_t(i) * kBuf; };
  // The four buffers to the device, one after the other, and wait for them.
  auto copy_all = [&](void* const* src) {
    for (int i = 0; i < kBufs; ++i)
      CHECK(cudaMemcpyAsync(dst(i), src[i], kBuf, cudaMemcpyHostToDevice, s));
    CHECK(cudaStreamSynchronize(s));
  };

  // Pinned staging for the chunked method: 2 chunks of 32 MiB, copied into by `cp` threads.
  constexpr std::size_t kChunk = std::size_t(32) << 20;
  void* stage[2];
  for (auto& p : stage) CHECK(cudaHostAlloc(&p, kChunk, cudaHostAllocDefault));
  cudaEvent_t done[2];
  for (auto& e : done) CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  void* pinned = nullptr;
  CHECK(cudaHostAlloc(&pinned, kBuf * kBufs, cudaHostAllocDefault));
  fill(pinned, kBuf * kBufs, 3);

  for (int loaded = 0; loaded < 2; ++loaded) {
    std::printf("--- %s ---\n", loaded ? "under load" : "quiet");
    Load load(loaded ? load_threads : 0);
    std::vector<double> fresh, faults, reg, reg_copy, unreg, pin_copy, staged1, staged4, warm;
    for (int r = 0; r < kRounds; ++r) {
      // 1. fresh pageable (the pipeline today): synthesis writes fresh mappings, copied as they are.
      void* h[kBufs];
      auto t = Clock::now();
      for (auto& p : h) p = map_fresh(kBuf), fill(p, kBuf, 1);
      faults.push_back(ms_since(t));
      t = Clock::now();
      copy_all(h);
      fresh.push_back(ms_since(t));
      t = Clock::now();
      copy_all(h);
      warm.push_back(ms_since(t));
      // 2. registered after synthesis: cudaHostRegister, DMA, unregister.
      t = Clock::now();
      for (auto p : h) CHECK(cudaHostRegister(p, kBuf, cudaHostRegisterDefault));
      reg.push_back(ms_since(t));
      t = Clock::now();
      copy_all(h);
      reg_copy.push_back(ms_since(t));
      t = Clock::now();
      for (auto p : h) CHECK(cudaHostUnregister(p));
      unreg.push_back(ms_since(t));
      // 3. staged through two pinned chunks, `cp` threads memcpy each chunk.
      for (int cp : {1, 4}) {
        t = Clock::now();
        int k = 0;
        for (int i = 0; i < kBufs; ++i)
          for (std::size_t off = 0; off < kBuf; off += kChunk, ++k) {
            const int slot = k & 1;
            CHECK(cudaEventSynchronize(done[slot]));
            const char* src = static_cast<const char*>(h[i]) + off;
            char* st = static_cast<char*>(stage[slot]);
            std::vector<std::thread> ws;
            const std::size_t part = kChunk / cp;
            for (int w = 1; w < cp; ++w)
              ws.emplace_back([=] { std::memcpy(st + w * part, src + w * part, part); });
            std::memcpy(st, src, part);
            for (auto& w : ws) w.join();
            CHECK(cudaMemcpyAsync(dst(i) + off, st, kChunk, cudaMemcpyHostToDevice, s));
            CHECK(cudaEventRecord(done[slot], s));
          }
        CHECK(cudaStreamSynchronize(s));
        (cp == 1 ? staged1 : staged4).push_back(ms_since(t));
      }
      for (auto p : h) munmap(p, kBuf);
      // 4. synthesized straight into pinned memory: DMA only.
      void* from_pinned[kBufs];
      for (int i = 0; i < kBufs; ++i) from_pinned[i] = static_cast<char*>(pinned) + std::size_t(i) * kBuf;
      t = Clock::now();
      copy_all(from_pinned);
      pin_copy.push_back(ms_since(t));
    }
    report("fill 4 fresh mappings (page faults + writes)", faults);
    report("copy fresh pageable (today)", fresh);
    report("copy the same pageable again (warm)", warm);
    report("cudaHostRegister of the 4 buffers", reg);
    report("copy registered", reg_copy);
    report("cudaHostUnregister", unreg);
    report("staged, 2 x 32 MiB pinned, 1 memcpy thread", staged1);
    report("staged, 2 x 32 MiB pinned, 4 memcpy threads", staged4);
    report("copy from pinned (synthesized into pinned)", pin_copy);
  }
  return 0;
}

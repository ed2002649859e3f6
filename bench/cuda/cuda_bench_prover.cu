// GPU benchmark of the prover's kernels (run by scripts/device-run.sh; not a test):
//
//   splitprove_cuda_bench_prover [max_log2=26] [reps=5]
//
//   ntt      forward NR (natural in, bit-reversed out: the H step's order), forward NN, and the
//            inverse NR, 2^20..2^max; data resident, CUDA-event medians
//   ntt      also NN as before the tiled permutation (NR + the element-wise swap pass), and the
//            two bit-reversal kernels alone
//   h        ab_minus_c_on_odd_coset on three resident vectors (6 NTTs + the fused scalings and
//            one pointwise pass: the snarkjs-key H step), and h_coefficients (7 NTTs + one fused
//            pointwise/bit-reversal pass: the monomial-basis H step, SupraSeal's computation),
//            2^20..2^max
//   g1       G1 MSM, bases resident, random full-width scalars (the sppark comparison) and a
//            Groth16-like witness (40% 0, 35% 1, 25% random: the split), 2^20..2^max
//   g2       G2 MSM, random scalars and the witness mix, 2^20 and 2^22
//            (g1, g2: with SPLITPROVE_MSM_AB=1 each MSM is measured again as before the dense
//            bucket table, the one-wave window segments, the merged chunks and the bounded G2
//            bucket kernel: MsmOptions::dense_runs = fit_window_segments = merge_chunks =
//            bounded_buckets = false, printed as g1-msm6 / g2-msm6; and G2 with
//            MsmOptions::fp2_call, printed as g2-fp2call)
//   part     one 2^24 partition: H step + H MSM (G1, Montgomery scalars from the NTT) + A, B1, C
//            MSMs (G1) + B2 (G2) over the witness mix; wall clock, all on one stream
// MSM times are host wall clock around the whole call (classification, sort, buckets, reduction,
// the host's window combination), medians of `reps`. Bases are (i+1)·G made on the device
// (three table points added, then one inversion each), scalars hashed on the device.
// Floors printed beside each figure: memory (4.1 TB/s d2d copy, measured in the same run) and
// arithmetic (Fr 57 Gmul/s, G1 2.44 Gmadd/s: the chained-kernel rates of bench/RESULTS.md).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cuda/ec.cuh"
#include "cuda/fp2.cuh"
#include "cuda/msm.hpp"
#include "cuda/ntt.hpp"
#include "cuda/runtime.cuh"
#include "bench_timer.cuh"

using namespace splitprove;
using namespace splitprove::cuda;
using HFr = bls12_381::Fr;
using HG1 = bls12_381::G1;
using HG2 = bls12_381::G2;
using Fr = DevField<HFr>;

namespace {

__device__ uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// kind 0: random < r; kind 1: witness mix (40% 0, 35% 1, 25% random). Written as canonical
// integers (also valid Montgomery limbs: a reduced value is reduced in either reading).
__global__ void fill_scalars(Fr* s, size_t n, uint64_t seed, int kind) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    Fr x = Fr::zero();
    const uint64_t h = mix64(seed * 0x1000193ull ^ i);
    const unsigned pick = unsigned(h % 100);
    if (kind == 0 || pick >= 75) {
      for (int k = 0; k < 8; k += 2) {
        const uint64_t r = mix64(h + k);
        x.v[k] = uint32_t(r), x.v[k + 1] = uint32_t(r >> 32);
      }
      x.v[7] %= uint32_t(HFr::MOD[3] >> 32);
    } else if (pick >= 40) {
      x.v[0] = 1;
    }
    x.store(s + i);
  }
}

// (i+1)·G for i < n: the library's fixed-base kernel, as the development setup makes a key's
// points on the device (cuda::generator_multiples).
template <class C>
DeviceBases<C> make_bases(DevicePool& pool, size_t n) {
  std::vector<typename C::Fr> k(n);
  for (size_t i = 0; i < n; ++i) k[i] = C::Fr::from_u64(i + 1);
  return generator_multiples<C>(pool, k);
}

using bench::event_ms;
using bench::median;
using bench::wall_ms;

constexpr double kCopyGBs = 4100, kFrGmul = 57.2, kG1Gmadd = 2.44;

// sppark on the same H200 (issue 6), ms; 0: not measured.
double sppark_g1(unsigned k) {
  return k == 20 ? 20.95 : k == 22 ? 53.57 : k == 24 ? 154.3 : k == 26 ? 556.3 : 0;
}
double sppark_g2(unsigned k) { return k == 20 ? 47.87 : k == 22 ? 138.4 : 0; }
double sppark_ntt(unsigned k) {
  return k == 20   ? 0.274
         : k == 22 ? 1.119
         : k == 24 ? 4.733
         : k == 26 ? 23.78
         : k == 27 ? 44.34
                   : 0;
}
double supra_h(unsigned k) {
  return k == 20 ? 2.10 : k == 22 ? 8.43 : k == 24 ? 35.4 : k == 26 ? 170.7 : k == 27 ? 330.4 : 0;
}

void ratio(double ours, double peer) {
  if (peer > 0) std::printf("  (%.2fx the peer's %.3f ms)", ours / peer, peer);
  std::printf("\n");
}

template <class C>
void print_msm(const char* name, unsigned k, const char* mix, float ms, const MsmStats& st,
               double peer) {
  const double madds = double(st.windows) * double(st.tail);
  std::printf(
      "%s 2^%u %-7s %9.2f ms  zeros %zu ones %zu tail %zu  c=%u W=%u  ~%.0fM madd (%.2f "
      "Gmadd/s) big %zu  phases: class %.2f ones %.2f sort %.2f buckets %.2f windows %.2f "
      "(%u segs)",
      name, k, mix, ms, st.zeros, st.ones, st.tail, st.window_bits, st.windows, madds / 1e6,
      madds / (ms / 1e3) / 1e9, st.big_runs, st.ms_classify, st.ms_ones, st.ms_sort, st.ms_buckets,
      st.ms_windows, st.window_segments);
  ratio(ms, peer);
  std::printf("RESULT %s log2_n=%u mix=%s ms=%.3f c=%u tail=%zu\n", name, k, mix, ms,
              st.window_bits, st.tail);
}

// The MSM configurations measured: the default; with SPLITPROVE_MSM_AB=1 also the previous
// default (MsmOptions::dense_runs = fit_window_segments = merge_chunks = bounded_buckets = false:
// cub's run-length encoded bucket table, in the sort phase; power-of-two window segments, in the
// window phase; the big runs' chunk kernel after the bucket kernel and G2's bucket kernel
// unbounded, in the bucket phase), each right after the default on the same scalars, so one run
// compares the two phase by phase; and, G2 only, the default with MsmOptions::fp2_call
// (g2-fp2call: the bucket kernel's Fp2 products called whole).
struct MsmVariant {
  MsmOptions opt;
  const char* g1;  // null: not measured for G1
  const char* g2;
};
std::vector<MsmVariant> msm_variants() {
  std::vector<MsmVariant> v{{MsmOptions{}, "g1", "g2"}};
  const char* ab = std::getenv("SPLITPROVE_MSM_AB");
  if (ab && std::strcmp(ab, "1") == 0) {
    MsmOptions prev;
    prev.dense_runs = false;
    prev.fit_window_segments = false;
    prev.merge_chunks = false;
    prev.bounded_buckets = false;
    v.push_back({prev, "g1-msm6", "g2-msm6"});
    MsmOptions fp2_call;  // G2 only: the Fp2 product called whole (default otherwise)
    fp2_call.fp2_call = true;
    v.push_back({fp2_call, nullptr, "g2-fp2call"});
  }
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  const unsigned max_log = argc > 1 ? unsigned(std::atoi(argv[1])) : 26;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 5;
  const char* only = argc > 3 ? argv[3] : "ntt,h,g1,g2,part";
  auto want = [&](const char* what) { return std::strstr(only, what) != nullptr; };
  try {
    mem::MemoryBudget budget(uint64_t(120) << 30, "gpu0");
    DevicePool pool(budget);
    GpuStream stream;
    cudaStream_t s = stream.get();
    std::printf("ceilings used: d2d copy %.0f GB/s, Fr %.1f Gmul/s, G1 %.2f Gmadd/s\n", kCopyGBs,
                kFrGmul, kG1Gmadd);

    if (want("ntt") || want("h")) {
      for (unsigned k = 20; k <= max_log; k += 2) {
        const size_t n = size_t(1) << k;
        FrNtt ntt(pool, k);
        DeviceBlock d = pool.allocate(3 * n * sizeof(HFr));
        HFr* a = d.as<HFr>();
        fill_scalars<<<grid_for(3 * n, 256), 256, 0, s>>>(d.as<Fr>(), 3 * n, k, 0);
        SPLITPROVE_CUDA_CHECK_LAUNCH();
        const unsigned passes = k <= 10 ? 1 : 1 + (k - 10 + 6) / 7;
        // n/2 products per stage but the first (ω_2^0 = 1): n/2·(k-1).
        const double bytes = double(passes) * 2 * n * 32, muls = double(n) / 2 * (k - 1);
        const double floor_ms = std::max(bytes / (kCopyGBs * 1e9), muls / (kFrGmul * 1e9)) * 1e3;
        const double copy_ms = 2.0 * n * 32 / (kCopyGBs * 1e9) * 1e3;  // read + write n elements
        if (want("ntt")) {
          const float nr = event_ms([&] { ntt.ntt(a, poly::Order::NR, s); }, reps, s);
          const float nn = event_ms([&] { ntt.ntt(a, poly::Order::NN, s); }, reps, s);
          // NN as it was before the tiled permutation: NR + the element-wise swap pass.
          const float nn_swap = event_ms(
              [&] {
                ntt.ntt(a, poly::Order::NR, s);
                ntt.bit_reverse(a, s, false);
              },
              reps, s);
          const float br_tiled = event_ms([&] { ntt.bit_reverse(a, s, true); }, reps, s);
          const float br_swap = event_ms([&] { ntt.bit_reverse(a, s, false); }, reps, s);
          const float inr = event_ms([&] { ntt.intt(a, poly::Order::NR, s); }, reps, s);
          std::printf(
              "ntt 2^%u  fwd NR %.3f ms  fwd NN %.3f ms (swap-pass NN %.3f)  inv NR %.3f ms  | %u "
              "passes, %.2f GB moved, %.0fM mul: floor %.3f ms, NR at %.0f GB/s %.1f Gmul/s",
              k, nr, nn, nn_swap, inr, passes, bytes / 1e9, muls / 1e6, floor_ms,
              bytes / (nr / 1e3) / 1e9, muls / (nr / 1e3) / 1e9);
          ratio(nn, sppark_ntt(k));
          std::printf(
              "bitrev 2^%u  tiled %.3f ms (%.0f GB/s)  swap %.3f ms (%.0f GB/s)  | %.2f GB: floor "
              "%.3f ms\n",
              k, br_tiled, 2.0 * n * 32 / (br_tiled / 1e3) / 1e9, br_swap,
              2.0 * n * 32 / (br_swap / 1e3) / 1e9, 2.0 * n * 32 / 1e9, copy_ms);
          std::printf(
              "RESULT ntt log2_n=%u nr_ms=%.4f nn_ms=%.4f nn_swap_ms=%.4f inv_nr_ms=%.4f "
              "bitrev_tiled_ms=%.4f bitrev_swap_ms=%.4f\n",
              k, nr, nn, nn_swap, inr, br_tiled, br_swap);
        }
        if (want("h")) {
          // Pointwise a·b - c: reads 3, writes 1 element; n products.
          const double pw_ms =
              std::max(2.0 * copy_ms, double(n) / (kFrGmul * 1e9) * 1e3);
          const float h =
              event_ms([&] { ntt.ab_minus_c_on_odd_coset(a, a + n, a + 2 * n, s); }, reps, s);
          // The fused scalings cost 2 products per element (lo·hi table factor, then the value):
          // 3 post-scales here, 4 in h_coefficients.
          const double scale_ms = 2.0 * n / (kFrGmul * 1e9) * 1e3;
          std::printf("h   2^%u  %.3f ms  | 6 NTTs + 3 scalings + a*b-c: floor %.3f ms", k, h,
                      6 * floor_ms + 3 * scale_ms + pw_ms);
          ratio(h, 0);
          // The coefficient-form H (monomial H basis): SupraSeal's H computation is this one.
          const float hc = event_ms([&] { ntt.h_coefficients(a, a + n, a + 2 * n, s); }, reps, s);
          std::printf(
              "hc  2^%u  %.3f ms  | 7 NTTs + 4 scalings + (a*b-c, bit reversal): floor %.3f ms", k,
              hc, 7 * floor_ms + 4 * scale_ms + pw_ms);
          ratio(hc, supra_h(k));
          std::printf("RESULT h log2_n=%u ms=%.4f hc_ms=%.4f\n", k, h, hc);
        }
      }
      pool.trim();
    }

    if (want("g1")) {
      const size_t nmax = size_t(1) << max_log;
      DeviceBases<HG1> bases = make_bases<HG1>(pool, nmax);
      DeviceBlock sc = pool.allocate(nmax * sizeof(HFr));
      for (unsigned k = 20; k <= max_log; k += 2) {
        const size_t n = size_t(1) << k;
        const int r = k >= 26 ? std::max(1, reps / 2) : reps;
        for (int kind = 0; kind < 2; ++kind) {
          fill_scalars<<<grid_for(n, 256), 256>>>(sc.as<Fr>(), n, 77 + k, kind);
          SPLITPROVE_CUDA_CHECK(cudaDeviceSynchronize());
          for (const MsmVariant& v : msm_variants()) {
            if (!v.g1) continue;
            MsmStats st;
            const float ms = wall_ms(
                [&] { msm<HG1>(pool, bases, sc.get(), n, ScalarForm::canonical, v.opt, &st, s); },
                r);
            print_msm<HG1>(v.g1, k, kind ? "witness" : "random", ms, st, kind ? 0 : sppark_g1(k));
          }
        }
      }
    }
    pool.trim();

    if (want("g2")) {
      const unsigned top = std::min(max_log, 22u);
      const size_t nmax = size_t(1) << top;
      DeviceBases<HG2> bases = make_bases<HG2>(pool, nmax);
      DeviceBlock sc = pool.allocate(nmax * sizeof(HFr));
      for (unsigned k = 20; k <= top; k += 2) {
        const size_t n = size_t(1) << k;
        for (int kind = 0; kind < 2; ++kind) {
          fill_scalars<<<grid_for(n, 256), 256>>>(sc.as<Fr>(), n, 99 + k, kind);
          SPLITPROVE_CUDA_CHECK(cudaDeviceSynchronize());
          for (const MsmVariant& v : msm_variants()) {
            MsmStats st;
            const float ms = wall_ms(
                [&] { msm<HG2>(pool, bases, sc.get(), n, ScalarForm::canonical, v.opt, &st, s); },
                std::max(1, reps / 2));
            print_msm<HG2>(v.g2, k, kind ? "witness" : "random", ms, st, kind ? 0 : sppark_g2(k));
          }
        }
      }
    }
    pool.trim();

    if (want("part") && max_log >= 24) {
      const unsigned k = 24;
      const size_t n = size_t(1) << k;
      DeviceBases<HG1> g1 = make_bases<HG1>(pool, n);
      DeviceBases<HG2> g2 = make_bases<HG2>(pool, n);
      FrNtt ntt(pool, k);
      DeviceBlock w = pool.allocate(n * sizeof(HFr)), abc = pool.allocate(3 * n * sizeof(HFr));
      fill_scalars<<<grid_for(n, 256), 256>>>(w.as<Fr>(), n, 5, 1);
      SPLITPROVE_CUDA_CHECK(cudaDeviceSynchronize());
      MsmStats sh, sa, sb2;
      float t_h = 0, t_hm = 0, t_g1 = 0, t_g2 = 0;
      auto once = [&] {
        fill_scalars<<<grid_for(3 * n, 256), 256, 0, s>>>(abc.as<Fr>(), 3 * n, 6, 0);
        auto t0 = std::chrono::steady_clock::now();
        HFr* a = abc.as<HFr>();
        ntt.ab_minus_c_on_odd_coset(a, a + n, a + 2 * n, s);
        sync_stream(s);
        auto t1 = std::chrono::steady_clock::now();
        msm<HG1>(pool, g1, a, n, ScalarForm::montgomery, {}, &sh, s);
        auto t2 = std::chrono::steady_clock::now();
        for (int i = 0; i < 3; ++i)  // A, B1, C: the same witness over the same bases
          msm<HG1>(pool, g1, w.get(), n, ScalarForm::canonical, {}, &sa, s);
        auto t3 = std::chrono::steady_clock::now();
        msm<HG2>(pool, g2, w.get(), n, ScalarForm::canonical, {}, &sb2, s);
        auto t4 = std::chrono::steady_clock::now();
        using ms = std::chrono::duration<float, std::milli>;
        t_h = ms(t1 - t0).count(), t_hm = ms(t2 - t1).count(), t_g1 = ms(t3 - t2).count(),
        t_g2 = ms(t4 - t3).count();
      };
      once();
      std::vector<float> tot;
      for (int i = 0; i < std::max(1, reps / 2); ++i) {
        once();
        tot.push_back(t_h + t_hm + t_g1 + t_g2);
      }
      std::printf(
          "part 2^24 witness 40/35/25: total %.1f ms (last: H %.1f, H MSM %.1f, 3 G1 MSMs "
          "%.1f, G2 MSM %.1f) against the 500 ms goal\n",
          median(tot), t_h, t_hm, t_g1, t_g2);
      std::printf("RESULT part log2_n=24 ms=%.2f\n", median(tot));
    }
    std::printf("device budget peak %.2f GiB, pool mallocs %zu\n",
                double(budget.books().peak) / double(1ull << 30), pool.mallocs());
  } catch (const std::exception& e) {
    std::printf("ERROR: %s\n", e.what());
    return 1;
  }
  return 0;
}

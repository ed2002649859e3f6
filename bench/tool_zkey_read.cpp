// Measures reading a large Groth16 .zkey: writes a synthetic BLS12-381 key shaped like a snarkjs
// setup of ~2^k constraints (nVars = domain = 2^k, one public input, one A and one B coefficient
// per constraint plus the public-binding rows), then reads it back
//   (1) with every check (ranges, curve equation, subgroup membership)
//   (2) with --no-subgroup (ranges and curve equation only)
// and prints wall time, throughput and the process's peak RSS. Points are i·G (valid, distinct).
//
//   tool_zkey_read [k=16] [path=/tmp/splitprove_bench.zkey] [--keep]
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include "io/zkey.hpp"
#include "util/parallel.hpp"

using namespace splitprove;
using E = ec::Bls12_381;

namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// User + system CPU seconds of the whole process (all threads): on a shared machine this is a
// steadier figure than wall time.
double cpu_s() {
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  return double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         1e-6 * double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

double peak_rss_gib() {
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  return double(ru.ru_maxrss) / (1024.0 * 1024.0);  // ru_maxrss is KiB on Linux
}

// P_i = (i + 1)·G for i < n: running sums in Jacobian form, one batch inversion per chunk.
template <class Curve>
std::vector<typename Curve::Affine> multiples(size_t n) {
  std::vector<typename Curve::Affine> out(n);
  util::parallel_for(
      n,
      [&](size_t b, size_t e) {
        std::vector<typename Curve::Jacobian> j(e - b);
        auto g = Curve::Affine::generator();
        auto acc = Curve::Jacobian::generator().mul_u64(b + 1);
        for (size_t i = b; i < e; ++i) {
          j[i - b] = acc;
          acc += g;
        }
        Curve::batch_to_affine(j, {out.data() + b, e - b});
      },
      1024);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  unsigned k = 16;
  std::string path = "/tmp/splitprove_bench.zkey";
  bool keep = false;
  for (int i = 1, pos = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--keep") == 0)
      keep = true;
    else if (pos++ == 0)
      k = unsigned(std::atoi(argv[i]));
    else
      path = argv[i];
  }
  if (k < 4 || k > 24) {
    std::fprintf(stderr, "k must be in 4..24\n");
    return 1;
  }
  const uint32_t n = 1u << k;
  std::printf("tool_zkey_read: k = %u, threads = %zu\n", k, util::num_threads());
  {
    double t0 = now_s();
    zk::ProvingKey<E> pk;
    pk.n_vars = n;
    pk.n_public = 1;
    pk.domain_size = n;
    const uint32_t n_constraints = n - pk.n_public - 1;
    auto g1 = multiples<E::G1>(n);
    auto g2 = multiples<E::G2>(n);
    pk.alpha1 = g1[1], pk.beta1 = g1[2], pk.delta1 = g1[3];
    pk.beta2 = g2[2], pk.gamma2 = g2[0], pk.delta2 = g2[3];
    pk.ic.assign(g1.begin(), g1.begin() + 2);
    pk.a = std::vector(g1.begin(), g1.end());
    pk.b1 = std::vector(g1.begin(), g1.end());
    pk.b2 = std::vector(g2.begin(), g2.end());
    pk.c = std::vector(g1.begin() + 2, g1.end());
    pk.h = std::vector(g1.begin(), g1.end());
    util::UninitVector<zk::Coefficient<E>> coeffs;
    coeffs.reserve(2 * size_t(n));
    for (uint32_t r = 0; r < n_constraints; ++r) {
      coeffs.push_back({zk::Matrix::kA, r, (r * 7 + 2) % n, E::Fr::from_u64(r + 1)});
      coeffs.push_back({zk::Matrix::kB, r, (r * 13 + 3) % n, -E::Fr::one()});
    }
    for (uint32_t i = 0; i <= pk.n_public; ++i)
      coeffs.push_back({zk::Matrix::kA, n_constraints + i, i, E::Fr::one()});
    pk.coeffs = std::move(coeffs);
    const double t1 = now_s();
    io::write_zkey<E>(path, pk);
    std::printf("generated in %.2f s, wrote %.1f MiB in %.2f s\n", t1 - t0,
                double(std::filesystem::file_size(path)) / (1 << 20), now_s() - t1);
  }
  const double mib = double(std::filesystem::file_size(path)) / (1 << 20);
  for (bool sub : {false, true}) {
    io::ZkeyReadOptions opt;
    opt.check_subgroup = sub;
    const double t0 = now_s(), c0 = cpu_s();
    const auto pk = io::read_zkey<E>(path, opt);
    const double dt = now_s() - t0, dc = cpu_s() - c0;
    const size_t g1 = pk.a.size() + pk.b1.size() + pk.c.size() + pk.h.size() + pk.ic.size();
    std::printf(
        "read %s: %.2f s wall, %.1f MiB/s; %.2f s CPU = %.2f us CPU per point "
        "(%zu G1 + %zu G2)\n",
        sub ? "with subgroup checks   " : "without subgroup checks", dt, mib / dt, dc,
        1e6 * dc / double(g1 + pk.b2.size()), g1, pk.b2.size());
  }
  std::printf("peak RSS %.2f GiB\n", peak_rss_gib());
  if (!keep) std::filesystem::remove(path);
  return 0;
}

// Where a Groth16 proof's time goes: reads a .zkey and a .wtns, proves REPS times and prints the
// median time of each stage (reading, evaluation, NTT, each MSM, finalize). The curve is the
// key's (BLS12-381 or BN254).
//   tool_prove_stages circuit.zkey witness.wtns [reps]
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "io/curve_id.hpp"
#include "io/wtns.hpp"
#include "io/zkey.hpp"
#include "splitprove/error.hpp"
#include "zk/groth16.hpp"

using namespace splitprove;
using clk = std::chrono::steady_clock;

template <class E>
void stages(char** argv, int reps) {
  std::map<std::string, std::vector<double>> t;
  std::vector<std::string> order;
  auto add = [&](const std::string& k, double v) {
    if (!t.count(k)) order.push_back(k);
    t[k].push_back(v);
  };
  for (int r = 0; r < reps; ++r) {
    auto t0 = clk::now();
    io::ZkeyReadOptions ro;
    ro.check_subgroup = false;
    auto pk = io::read_zkey<E>(argv[1], ro);
    auto w = io::read_wtns<E>(argv[2]);
    auto t1 = clk::now();
    add("read key + witness (on-curve checks)", std::chrono::duration<double>(t1 - t0).count());
    std::string stage;
    auto last = clk::now();
    auto proof = zk::prove<E>(pk, w.values, [&](const char* s, double) {
      auto now = clk::now();
      if (!stage.empty()) add(stage, std::chrono::duration<double>(now - last).count());
      stage = s;
      last = now;
    });
    auto t2 = clk::now();
    auto ok = zk::verify<E>(zk::prepare<E>(zk::verifying_key(pk)), zk::public_inputs<E>(pk, w.values), proof);
    add("verify", std::chrono::duration<double>(clk::now() - t2).count());
    if (!ok) throw Error("the proof does not verify");
  }
  double total = 0;
  for (auto& k : order) {
    auto v = t[k];
    std::sort(v.begin(), v.end());
    double med = v[v.size() / 2];
    total += med;
    std::printf("%-40s %9.1f ms\n", k.c_str(), med * 1e3);
  }
  std::printf("%-40s %9.1f ms (sum of medians)\n", "total", total * 1e3);
}

int main(int argc, char** argv) try {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s circuit.zkey witness.wtns [reps]\n", argv[0]);
    return 2;
  }
  const int reps = argc > 3 ? std::max(1, std::atoi(argv[3])) : 3;
  if (io::detect_curve(argv[1]) == ec::CurveId::kBn254)
    stages<ec::Bn254>(argv, reps);
  else
    stages<ec::Bls12_381>(argv, reps);
} catch (const std::exception& e) {
  std::fprintf(stderr, "error: %s\n", e.what());
  return 1;
}

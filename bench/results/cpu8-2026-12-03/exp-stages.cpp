// Experiment: wall and process CPU per prove stage (BN254), via prove's progress callback.
#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>
#include "io/wtns.hpp"
#include "io/zkey.hpp"
#include "zk/groth16.hpp"
using namespace splitprove;
using E = zk::Bn254;
static double cpu_now() { timespec ts{}; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts); return ts.tv_sec + 1e-9 * ts.tv_nsec; }
static double wall_now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
int main(int argc, char** argv) {
  double w0 = wall_now(), c0 = cpu_now();
  auto mark = [&](const std::string& what) { double w = wall_now(), c = cpu_now(); std::printf("%-22s wall %6.1f ms  cpu %6.1f ms  (cores %.2f)\n", what.c_str(), 1e3*(w-w0), 1e3*(c-c0), (c-c0)/(w-w0)); w0 = w; c0 = c; };
  const auto pk = io::read_zkey<E>(argv[1]);
  mark("read zkey");
  const auto w = io::read_wtns<E>(argv[2]);
  mark("read wtns");
  std::string cur = "start";
  auto p = zk::prove<E>(pk, w.values, [&](const char* stage, double) { mark(cur); cur = stage; });
  mark(cur);
}

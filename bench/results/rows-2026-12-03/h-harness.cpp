#include <chrono>
#include <cstdio>
#include <vector>
#include "poly/domain.hpp"
#include "ec/bn254.hpp"
using namespace splitprove;
using F = bn254::Fr;
using clk = std::chrono::steady_clock;
static double ms(clk::time_point a) { return std::chrono::duration<double>(clk::now() - a).count() * 1e3; }
int main() {
  const size_t n = 1 << 16;
  for (int r = 0; r < 5; ++r) {
    auto t0 = clk::now();
    auto d = poly::Domain<F>::of_size(n);
    double tp = ms(t0);
    std::vector<F> a(n), b(n), c(n);
    for (size_t i = 0; i < n; ++i) a[i] = F::from_u64(i * 7 + 1), b[i] = F::from_u64(i + 3), c[i] = a[i] * b[i];
    t0 = clk::now();
    d.ab_minus_c_on_odd_coset(a, b, c);
    double th = ms(t0);
    t0 = clk::now();
    d.ntt(a);
    double t1 = ms(t0);
    std::printf("plan %.2f ms  h %.2f ms  one ntt NN %.2f ms\n", tp, th, t1);
  }
}

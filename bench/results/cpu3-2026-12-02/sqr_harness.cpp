#include <chrono>
#include <cstdio>
#include <random>
#include "ec/bls12_381.hpp"
#include "ec/bn254.hpp"
using namespace splitprove;
template <class F> void run(const char* name) {
  std::mt19937_64 rng(1);
  for (int i = 0; i < 200000; ++i) {
    auto a = F::random(rng).mont();
    if (i < 8) { for (auto& l : a) l = 0; if (i < F::N) a[i] = ~0ull >> (i == F::N-1 ? 4 : 0); }
    if (F::mont_sqr(a) != F::mont_mul_portable(a, a) || F::sqr_wide_adx(a) != F::mul_wide(a, a)) { std::printf("%s MISMATCH at %d\n", name, i); return; }
  }
  auto x = F::random(rng).mont();
  auto bench = [&](auto f, const char* what) {
    auto y = x;
    timespec t0, t1; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    for (int i = 0; i < 5000000; ++i) y = f(y);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
    double ns = ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / 5e6;
    std::printf("%s %-12s %.1f ns (%llx)\n", name, what, ns, (unsigned long long)y[0]);
  };
  for (int rep = 0; rep < 2; ++rep) {
    bench([](auto v) { return F::mont_sqr(v); }, "sqr");
    bench([](auto v) { return F::mont_mul(v, v); }, "mul(a,a)");
    bench([](auto v) { return F::redc(F::mul_wide(v, v)); }, "redc(mulw)");
    bench([](auto v) { auto w = F::sqr_wide_adx(v); typename F::Repr r; for (size_t i = 0; i < F::N; ++i) r[i] = w[i] ^ w[i + F::N]; return r; }, "sqrw only");
    bench([](auto v) { auto w = F::mul_wide(v, v); typename F::Repr r; for (size_t i = 0; i < F::N; ++i) r[i] = w[i] ^ w[i + F::N]; return r; }, "mulw only");
  }
}
int main() { run<bls12_381::Fp>("bls Fp"); run<bn254::Fp>("bn Fp"); }

#include "zk/r1cs.hpp"

#include <atomic>
#include <limits>

#include "splitprove/error.hpp"
#include "util/parallel.hpp"

namespace splitprove::zk {

template <class E>
std::optional<size_t> first_unsatisfied(const R1cs<E>& r, std::span<const typename E::Fr> w) {
  using Fr = typename E::Fr;
  if (w.size() != r.n_wires)
    throw Error(r.source + ": witness has " + std::to_string(w.size()) + " values, the circuit " +
                std::to_string(r.n_wires) + " wires");
  std::atomic<size_t> first{std::numeric_limits<size_t>::max()};
  util::parallel_for(
      r.n_constraints,
      [&](size_t b, size_t e) {
        for (size_t i = b; i < e; ++i) {
          if (i > first.load(std::memory_order_relaxed)) return;
          Fr v[3];
          for (int m = 0; m < 3; ++m) {
            Fr acc = Fr::zero();
            for (const auto& t : r.lc(i, m)) acc += t.coeff * w[t.wire];
            v[m] = acc;
          }
          if (v[0] * v[1] == v[2]) continue;
          size_t cur = first.load();
          while (i < cur && !first.compare_exchange_weak(cur, i)) {
          }
          return;
        }
      },
      256);
  if (first.load() == std::numeric_limits<size_t>::max()) return std::nullopt;
  return first.load();
}

#define SPLITPROVE_ZK_R1CS_INSTANTIATE(E)                                     \
  template std::optional<size_t> first_unsatisfied<E>(const R1cs<E>&,       \
                                                      std::span<const E::Fr>);
SPLITPROVE_FOR_EACH_ENGINE(SPLITPROVE_ZK_R1CS_INSTANTIATE)

}  // namespace splitprove::zk

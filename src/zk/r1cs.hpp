#pragma once
// A rank-1 constraint system in memory: A·w ∘ B·w = C·w over the scalar field, its terms in
// compressed-row form. The zk layer owns it (development setup and the satisfiability check work
// on it); io reads and writes it as circom's .r1cs (io/r1cs.hpp), circuit builds it natively.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ec/curves.hpp"

namespace splitprove::zk {

template <class E>
struct Term {
  uint32_t wire;
  typename E::Fr coeff;  // the plain coefficient (Montgomery inside the Field type)
};

// Constraints in compressed-row form: the terms of constraint i's A, B and C are
// terms[offsets[3i + m] .. offsets[3i + m + 1]) for m = 0, 1, 2, in file order.
template <class E>
struct R1cs {
  std::string source;    // file name, for messages
  uint32_t n_wires = 0;  // including wire 0 (the constant 1)
  uint32_t n_pub_out = 0;
  uint32_t n_pub_in = 0;
  uint32_t n_prv_in = 0;
  uint64_t n_labels = 0;
  uint32_t n_constraints = 0;
  std::vector<Term<E>> terms;
  std::vector<uint64_t> offsets;      // 3·n_constraints + 1 entries
  std::vector<uint64_t> wire_labels;  // section 3 when present (else empty)

  uint32_t n_public() const { return n_pub_out + n_pub_in; }
  // m: 0 = A, 1 = B, 2 = C.
  std::span<const Term<E>> lc(size_t constraint, int m) const {
    const size_t k = 3 * constraint + size_t(m);
    return {terms.data() + offsets[k], terms.data() + offsets[k + 1]};
  }
};

// The first constraint i with (A_i·w)(B_i·w) != C_i·w, or nullopt when w satisfies every one.
// w must have n_wires values (checked: Error otherwise). Runs on the thread pool.
template <class E>
std::optional<size_t> first_unsatisfied(const R1cs<E>& r1cs, std::span<const typename E::Fr> w);

#define SPLITPROVE_ZK_R1CS_EXTERN(E)                                                  \
  extern template std::optional<size_t> first_unsatisfied<E>(const R1cs<E>&,         \
                                                             std::span<const E::Fr>);
SPLITPROVE_FOR_EACH_ENGINE(SPLITPROVE_ZK_R1CS_EXTERN)
#undef SPLITPROVE_ZK_R1CS_EXTERN

}  // namespace splitprove::zk

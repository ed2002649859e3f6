#pragma once
// A recorded native circuit as a zk::R1cs (circom's .r1cs model), so that io::encode_r1cs writes
// it as a file snarkjs reads (zk::dev_setup reads it in place, through setup_rows below). All
// publics are public inputs (nPubOut = 0), in the circuit's allocation order; the private
// variables are internal wires (nPrvIn = 0); one label per wire (nLabels = nWires, no section 3).
#include <limits>

#include "circuit/constraint_system.hpp"
#include "zk/r1cs.hpp"
#include "zk/setup.hpp"

namespace splitprove::circuit {

template <class E>
zk::R1cs<E> to_r1cs(const ConstraintSystem<typename E::Fr>& cs) {
  zk::R1cs<E> r;
  r.source = cs.name;
  r.n_wires = cs.n_vars();
  r.n_pub_out = 0;
  r.n_pub_in = cs.n_public;
  r.n_prv_in = 0;
  r.n_labels = r.n_wires;
  r.n_constraints = cs.n_constraints;
  r.terms.reserve(cs.a.entries.size() + cs.b.entries.size() + cs.c.entries.size());
  r.offsets.reserve(3 * size_t(cs.n_constraints) + 1);
  r.offsets.push_back(0);
  for (size_t i = 0; i < cs.n_constraints; ++i)
    for (const auto* m : {&cs.a, &cs.b, &cs.c}) {
      for (const Entry& e : m->row(i)) r.terms.push_back({e.col, cs.coeffs[e.coeff]});
      r.offsets.push_back(r.terms.size());
    }
  return r;
}

// The recorded circuit as the setup reads it (zk::SetupRows): its terms in place, no R1cs copy.
// `cs` must outlive the result.
template <class Fr>
auto setup_rows(const ConstraintSystem<Fr>& cs) {
  auto visit = [&cs](size_t i, int m, auto&& f) {
    const CsrMatrix<Fr>& mat = m == 0 ? cs.a : m == 1 ? cs.b : cs.c;
    for (const Entry& e : mat.row(i)) f(e.col, cs.coeffs[e.coeff]);
  };
  return zk::SetupRows<Fr, decltype(visit)>{cs.name, cs.n_constraints, cs.n_public, cs.n_vars(),
                                            visit};
}

}  // namespace splitprove::circuit

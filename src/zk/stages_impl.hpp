#pragma once
// Template bodies of zk/stages.hpp. Included by groth16_impl.hpp (prove_with runs through them) and
// instantiated per curve in zk/stages_<curve>.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <optional>

#include "msm/msm.hpp"
#include "poly/domain.hpp"
#include "poly/h_coeffs.hpp"
#include "splitprove/error.hpp"
#include "util/parallel.hpp"
#include "zk/groth16.hpp"
#include "zk/stages.hpp"

namespace splitprove::zk {

template <class E>
G2Bases<E> G2Bases<E>::of(const ProvingKey<E>& pk) {
  G2Bases g;
  for (std::uint32_t i = 0; i < pk.b2.size(); ++i) {
    if (pk.b2[i].is_identity()) continue;
    g.wires.push_back(i);
    g.bases.push_back(pk.b2[i]);
  }
  return g;
}

template <class E>
void evaluate_ab(const ProvingKey<E>& pk, std::span<const typename E::Fr> w,
                 std::span<typename E::Fr> a, std::span<typename E::Fr> b) {
  const std::size_t n = pk.domain_size;
  if (w.size() != pk.n_vars || a.size() != n || b.size() != n)
    throw Error(fmt::format(
        "evaluate_ab: {} / {} / {} values for a key of {} variables and domain {}", w.size(),
        a.size(), b.size(), pk.n_vars, n));
  // a_i, b_i for the rows of the key's A and B matrices (rows >= n are impossible for a valid key;
  // the reader checks it). Coefficients are summed per row by a pass over the list split into
  // row-disjoint ranges when the list is sorted by row (snarkjs writes it so), serially otherwise.
  const auto& cs = pk.coeffs;
  bool sorted = true;
  for (std::size_t i = 1; i < cs.size() && sorted; ++i) sorted = cs[i - 1].row <= cs[i].row;
  // Each term is scaled()·w = coef·w·R (the stored form, see Coefficient): the sums are R times
  // a_i and b_i, corrected below by one product with R⁻¹ per row.
  auto run = [&](std::size_t lo, std::size_t hi) {
    for (std::size_t k = lo; k < hi; ++k) {
      const Coefficient<E> co = cs[k];
      auto& dst = co.matrix == Matrix::kA ? a[co.row] : b[co.row];
      dst += co.scaled() * w[co.col];
    }
  };
  if (!sorted || cs.size() < 4096) {
    run(0, cs.size());
  } else {
    // Split points moved forward to a row boundary so no two chunks touch the same row.
    const std::size_t chunks = 4 * util::num_threads();
    std::vector<std::size_t> cut(chunks + 1, cs.size());
    cut[0] = 0;
    for (std::size_t t = 1; t < chunks; ++t) {
      std::size_t k = std::max(cut[t - 1], cs.size() * t / chunks);
      while (k > 0 && k < cs.size() && cs[k].row == cs[k - 1].row) ++k;
      cut[t] = k;
    }
    util::parallel_for(
        chunks,
        [&](std::size_t t0, std::size_t t1) {
          for (std::size_t t = t0; t < t1; ++t) run(cut[t], cut[t + 1]);
        },
        1, chunks);
  }
  using Fr = typename E::Fr;
  const Fr r_inv = Fr::from_mont(ff::from_u64<Fr::N>(1));  // Montgomery limbs 1: the value R⁻¹
  util::parallel_for(
      n,
      [&](std::size_t lo, std::size_t hi) {
        for (std::size_t i = lo; i < hi; ++i) {
          a[i] *= r_inv;
          b[i] *= r_inv;
        }
      },
      4096);
}

template <class E>
void h_scalars(const poly::Domain<typename E::Fr>& domain, std::span<typename E::Fr> a,
               std::span<typename E::Fr> b, std::span<typename E::Fr> c, HBasis basis) {
  if (b.size() != a.size() || c.size() != a.size())
    throw Error(fmt::format("h_scalars: a, b, c of {}, {}, {} values", a.size(), b.size(),
                            c.size()));
  util::parallel_for(
      a.size(),
      [&](std::size_t lo, std::size_t hi) {
        for (std::size_t i = lo; i < hi; ++i) c[i] = a[i] * b[i];
      },
      4096);
  if (basis == HBasis::monomial)
    poly::h_coefficients(domain, a, b, c);
  else
    domain.ab_minus_c_on_odd_coset(a, b, c);
}

template <class E>
typename E::G1Jacobian msm_h(const ProvingKey<E>& pk, std::span<const typename E::Fr> p,
                             msm::Workspace<typename E::G1>* ws) {
  if (ws) return msm::msm<typename E::G1>(pk.h, p, *ws);
  return msm::msm<typename E::G1>(pk.h, p);
}

template <class E>
void msm_z(const ProvingKey<E>& pk, std::span<const typename E::Fr> z, G1Results<E>& out,
           msm::Workspace<typename E::G1>* ws) {
  using G1 = typename E::G1;
  if (z.size() != pk.n_vars)
    throw Error(fmt::format("prove: the assignment has {} values, the proving key has {} variables",
                            z.size(), pk.n_vars));
  std::optional<msm::Workspace<G1>> own;
  if (!ws) ws = &own.emplace();
  out.a = msm::msm<G1>(pk.a, z, *ws);
  out.b1 = msm::msm<G1>(pk.b1, z, *ws);
  out.l = msm::msm<G1>(pk.c, z.subspan(std::size_t(pk.n_public) + 1), *ws);
}

template <class E>
G1Results<E> g1_stage(const ProvingKey<E>& pk, const poly::Domain<typename E::Fr>& domain,
                      std::span<const typename E::Fr> z, std::span<typename E::Fr> a,
                      std::span<typename E::Fr> b, std::span<typename E::Fr> c) {
  G1Results<E> out;
  h_scalars<E>(domain, a, b, c, pk.h_basis);
  msm::Workspace<typename E::G1> ws;
  out.h = msm_h<E>(pk, a, &ws);
  msm_z<E>(pk, z, out, &ws);
  return out;
}

template <class E>
std::size_t compact_g2_scalars(const G2Bases<E>& bases, std::span<const typename E::Fr> z,
                               std::span<typename E::Fr> out) {
  if (out.size() != bases.size())
    throw Error(
        fmt::format("compact_g2_scalars: {} slots for {} B-dense wires", out.size(), bases.size()));
  // A gather over the cores (tens of millions of wires at Filecoin size), counting the tail on
  // the way. A wire past z throws from its chunk; parallel_for rethrows it.
  std::atomic<std::size_t> tail{0};
  util::parallel_for(
      bases.size(),
      [&](std::size_t lo, std::size_t hi) {
        std::size_t t = 0;
        for (std::size_t k = lo; k < hi; ++k) {
          const std::uint32_t w = bases.wires[k];
          if (w >= z.size())
            throw Error(fmt::format("compact_g2_scalars: wire {} is past the assignment's {} values",
                                    w, z.size()));
          out[k] = z[w];
          t += !out[k].is_zero() && !out[k].is_one();
        }
        tail += t;
      },
      std::size_t(1) << 16);
  return tail.load();
}

template <class E>
typename E::G2Jacobian msm_g2(const G2Bases<E>& bases, std::span<const typename E::Fr> scalars) {
  return msm::msm<typename E::G2>(bases.bases, scalars);
}

template <class E>
Proof<E> assemble(const ProvingKey<E>& pk, const G1Results<E>& g1, const typename E::G2Jacobian& b2,
                  const typename E::Fr& r, const typename E::Fr& s) {
  using G1 = typename E::G1;
  using G2 = typename E::G2;
  auto pi_a = pk.alpha1.to_jacobian() + g1.a + G1::mul_ct(pk.delta1, r);
  auto pi_b = pk.beta2.to_jacobian() + b2 + G2::mul_ct(pk.delta2, s);
  auto b1 = pk.beta1.to_jacobian() + g1.b1 + G1::mul_ct(pk.delta1, s);
  auto pi_c = g1.l + g1.h + G1::mul_ct(pi_a.to_affine(), s) + G1::mul_ct(b1.to_affine(), r) -
              G1::mul_ct(pk.delta1, r * s);
  return Proof<E>{pi_a.to_affine(), pi_b.to_affine(), pi_c.to_affine()};
}

template <class E>
Proof<E> assemble_verified(const ProvingKey<E>& pk, const PreparedVerifyingKey<E>& pvk,
                           std::span<const typename E::Fr> public_inputs, const G1Results<E>& g1,
                           const typename E::G2Jacobian& b2, const typename E::Fr& r,
                           const typename E::Fr& s, const std::string& what) {
  Proof<E> proof = assemble<E>(pk, g1, b2, r, s);
  if (auto reason = verify_reason<E>(pvk, public_inputs, proof))
    throw Error(
        fmt::format("{}: the proof does not verify ({}); the assignment does not satisfy "
                    "the circuit",
                    what, *reason));
  return proof;
}

template <class E>
std::uint64_t g1_stage_scratch_bytes(const ProvingKey<E>& pk) {
  // The MSMs run one after another, so the largest one bounds the stage.
  const std::size_t n = std::max<std::size_t>(pk.domain_size, pk.n_vars);
  return msm::scratch_bytes<typename E::G1>(n);
}

template <class E>
std::uint64_t g2_stage_scratch_bytes(const G2Bases<E>& bases) {
  return msm::scratch_bytes<typename E::G2>(bases.size());
}

template <class E>
std::uint64_t g2_stage_scratch_bytes(const G2Bases<E>& bases, std::size_t max_tail) {
  // At least one term's worth: even an all-0/1 input allocates the classification's sums.
  const std::size_t tail = std::max<std::size_t>(1, std::min(max_tail, bases.size()));
  return msm::scratch_bytes<typename E::G2>(tail);
}

// The instantiation list of the stages, over an engine E (ec/curves.hpp); stages_<curve>.cpp
// expands it in one line.
#define SPLITPROVE_STAGES_INSTANTIATE(E)                                                          \
  template struct G2Bases<E>;                                                                     \
  template void evaluate_ab<E>(const ProvingKey<E>&, std::span<const E::Fr>, std::span<E::Fr>,    \
                               std::span<E::Fr>);                                                 \
  template void h_scalars<E>(const poly::Domain<E::Fr>&, std::span<E::Fr>, std::span<E::Fr>,      \
                             std::span<E::Fr>, HBasis);                                                   \
  template E::G1Jacobian msm_h<E>(const ProvingKey<E>&, std::span<const E::Fr>,                 \
                                  msm::Workspace<E::G1>*);                                        \
  template void msm_z<E>(const ProvingKey<E>&, std::span<const E::Fr>, G1Results<E>&,             \
                         msm::Workspace<E::G1>*);                                                 \
  template G1Results<E> g1_stage<E>(const ProvingKey<E>&, const poly::Domain<E::Fr>&,             \
                                    std::span<const E::Fr>, std::span<E::Fr>, std::span<E::Fr>,   \
                                    std::span<E::Fr>);                                            \
  template std::size_t compact_g2_scalars<E>(const G2Bases<E>&, std::span<const E::Fr>,           \
                                             std::span<E::Fr>);                                   \
  template E::G2Jacobian msm_g2<E>(const G2Bases<E>&, std::span<const E::Fr>);                    \
  template Proof<E> assemble<E>(const ProvingKey<E>&, const G1Results<E>&, const E::G2Jacobian&,  \
                                const E::Fr&, const E::Fr&);                                      \
  template Proof<E> assemble_verified<E>(                                                         \
      const ProvingKey<E>&, const PreparedVerifyingKey<E>&, std::span<const E::Fr>,               \
      const G1Results<E>&, const E::G2Jacobian&, const E::Fr&, const E::Fr&, const std::string&); \
  template std::uint64_t g1_stage_scratch_bytes<E>(const ProvingKey<E>&);                         \
  template std::uint64_t g2_stage_scratch_bytes<E>(const G2Bases<E>&);                           \
  template std::uint64_t g2_stage_scratch_bytes<E>(const G2Bases<E>&, std::size_t);

}  // namespace splitprove::zk

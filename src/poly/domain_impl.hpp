#pragma once
// Definitions of poly::Domain<F> (see domain.hpp). Include this header to use a field other than
// bls12_381::Fr, which the library instantiates in domain_bls12_381.cpp.
#include <bit>
#include <string>

#include "poly/domain.hpp"
#include "poly/ntt_kernels.hpp"
#include "splitprove/error.hpp"
#include "util/parallel.hpp"

namespace splitprove::poly {

namespace detail {
template <class F>
struct FieldName {
  static constexpr const char* value = "field";
};
template <class P>
struct FieldName<ff::Field<P>> {
  static constexpr const char* value = P::name;
};
}  // namespace detail

template <class F>
Domain<F>::Domain(unsigned log_size) : k_(log_size), n_(0) {
  if (log_size > kMaxLogSize)
    throw Error("poly::Domain: size 2^" + std::to_string(log_size) + " exceeds the largest " +
                "radix-2 domain 2^" + std::to_string(kMaxLogSize) + " of " +
                detail::FieldName<F>::value + " (2-adicity " + std::to_string(F::S) + ")");
  n_ = size_t(1) << k_;
  omega_ = F::root_of_unity(k_);
  omega_inv_ = omega_.inverse();
  n_inv_ = F::from_u64(uint64_t(n_)).inverse();
  plan_ = std::make_shared<const detail::Plan<F>>(k_, omega_, omega_inv_);
}

template <class F>
Domain<F> Domain<F>::of_size(size_t n) {
  if (n == 0 || !std::has_single_bit(n))
    throw Error("poly::Domain: size " + std::to_string(n) + " is not a power of two");
  return Domain(unsigned(std::countr_zero(n)));
}

template <class F>
Domain<F> Domain<F>::at_least(size_t n) {
  if (n > (size_t(1) << kMaxLogSize))
    throw Error("poly::Domain: " + std::to_string(n) + " points exceed the largest radix-2 " +
                "domain 2^" + std::to_string(kMaxLogSize) + " of " + detail::FieldName<F>::value);
  return Domain(unsigned(std::bit_width(n <= 1 ? size_t(0) : n - 1)));
}

template <class F>
F Domain<F>::element(size_t i) const {
  return omega_.pow(uint64_t(i & (n_ - 1)));
}

template <class F>
void Domain<F>::check(std::span<const F> a, const char* op) const {
  if (a.size() != n_)
    throw Error(std::string("poly::Domain::") + op + ": input has " + std::to_string(a.size()) +
                " elements, the domain has 2^" + std::to_string(k_) + " = " + std::to_string(n_));
}

template <class F>
void Domain<F>::ntt(std::span<F> a, Order order) const {
  check(a, "ntt");
  plan_->run(a.data(), Direction::Forward, order, {}, {});
}

template <class F>
void Domain<F>::intt(std::span<F> a, Order order) const {
  check(a, "intt");
  plan_->run(a.data(), Direction::Inverse, order, {}, {n_inv_, F::one()});
}

template <class F>
void Domain<F>::coset_ntt(std::span<F> a, const F& shift, Order order) const {
  check(a, "coset_ntt");
  if (shift.is_zero()) throw Error("poly::Domain::coset_ntt: the coset shift is zero");
  plan_->run(a.data(), Direction::Forward, order, {F::one(), shift}, {});
}

template <class F>
void Domain<F>::coset_intt(std::span<F> a, const F& shift, Order order) const {
  check(a, "coset_intt");
  if (shift.is_zero()) throw Error("poly::Domain::coset_intt: the coset shift is zero");
  plan_->run(a.data(), Direction::Inverse, order, {}, {n_inv_, shift.inverse()});
}

template <class F>
F Domain<F>::odd_coset_shift() const {
  if (k_ < F::S) return F::root_of_unity(k_ + 1);
  return F::smallest_non_residue().square();
}

template <class F>
void Domain<F>::to_odd_coset(std::span<F> evals) const {
  check(evals, "to_odd_coset");
  const F shift = odd_coset_shift();
  plan_->run(evals.data(), Direction::Inverse, Order::NR, {}, {n_inv_, F::one()});
  plan_->run(evals.data(), Direction::Forward, Order::RN, {F::one(), shift}, {});
}

template <class F>
void Domain<F>::ab_minus_c_on_odd_coset(std::span<F> a, std::span<F> b, std::span<F> c) const {
  check(a, "ab_minus_c_on_odd_coset(a)");
  check(b, "ab_minus_c_on_odd_coset(b)");
  check(c, "ab_minus_c_on_odd_coset(c)");
  to_odd_coset(a);
  to_odd_coset(b);
  to_odd_coset(c);
  util::parallel_for(
      n_,
      [&](size_t lo, size_t hi) {
        detail::mul_sub_row(a.data() + lo, b.data() + lo, c.data() + lo, hi - lo);
      },
      detail::kMinChunkElems);
}

template <class F>
F Domain<F>::vanishing_at(const F& x) const {
  F y = x;
  for (unsigned i = 0; i < k_; ++i) y = y.square();  // x^(2^k)
  return y - F::one();
}

template <class F>
std::vector<F> Domain<F>::lagrange_at(const F& tau) const {
  std::vector<F> out(n_);
  lagrange_at(tau, out);
  return out;
}

template <class F>
void Domain<F>::lagrange_at(const F& tau, std::span<F> out) const {
  check(out, "lagrange_at");
  const F z = vanishing_at(tau);
  if (z.is_zero()) {
    // τ = ω^m for one m: L_i(τ) = δ_im. Find m by walking the domain once.
    size_t m = 0;
    F w = F::one();
    for (size_t i = 0; i < n_; ++i, w *= omega_) {
      if (w == tau) {
        m = i;
        break;
      }
    }
    for (auto& x : out) x = F::zero();
    out[m] = F::one();  // m < n: every n-th root of unity is a power of ω
    return;
  }
  const F scale = z * n_inv_;  // (τ^n - 1)/n
  // Per chunk [lo, hi): out[i] = Π_(lo<=l<=i) d_l with d_l = τ - ω^l, one inversion of the chunk's
  // product, then a backward walk (ω^i recomputed by ω^-1 steps) that peels off 1/d_i:
  //   L_i = scale·ω^i · inv·out[i-1],  inv <- inv·d_i   (inv starts as 1/Π d over the chunk).
  // No scratch memory; 6 multiplications and one inversion per chunk.
  util::parallel_for(
      n_,
      [&](size_t lo, size_t hi) {
        F w = element(lo);
        F acc = F::one();
        for (size_t i = lo; i < hi; ++i) {
          acc *= tau - w;
          out[i] = acc;
          w *= omega_;
        }
        F inv = scale * acc.inverse();  // w = ω^hi here
        for (size_t i = hi; i-- > lo;) {
          w *= omega_inv_;  // ω^i
          const F prev = i > lo ? out[i - 1] : F::one();
          out[i] = w * inv * prev;
          inv *= tau - w;
        }
      },
      detail::kMinChunkElems);
}

}  // namespace splitprove::poly

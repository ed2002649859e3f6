#pragma once
// Radix-2 evaluation domains H = <ω> = {1, ω, ..., ω^(n-1)}, n = 2^k, over an FFT-friendly prime
// field F = ff::Field<P> with p - 1 = 2^S·T (BLS12-381 Fr: S = 32; BN254 Fr: S = 28), and the
// transforms the Groth16 prover needs on them.
//
// ω is the snarkjs/ffjavascript root: ω = F::root_of_unity(k) = w[k], w[S] = g^T for the smallest
// quadratic non-residue g (5 on both curves), w[i] = w[i+1]^2. Constraint row i is evaluated at
// ω^i, so the H points of a snarkjs zkey line up with our evaluations.
//
// Conventions: the forward NTT maps coefficients (a_0..a_(n-1)) to evaluations a(ω^i); the inverse
// maps back (dividing by n). A coset NTT with shift g evaluates at g·ω^i: coefficient j is
// multiplied by g^j before the forward NTT, and divided by g^j after the inverse one. Every
// transform works in place on the caller's span, in the orders chosen by poly::Order (see ntt.hpp),
// multithreaded over util::parallel_for. Inputs of the wrong length are rejected with
// splitprove::Error.
//
// Definitions live in domain_impl.hpp; bls12_381::Fr and bn254::Fr are instantiated once in the
// library (domain_<curve>.cpp). Other fields: include domain_impl.hpp.
#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "ec/bls12_381.hpp"
#include "ec/bn254.hpp"
#include "ff/field.hpp"
#include "poly/ntt.hpp"

namespace splitprove::poly {

namespace detail {
template <class F>
struct Plan;
}  // namespace detail

template <class F>
class Domain {
 public:
  using Field = F;
  // 2^40 elements would already be 32 TiB of a 256-bit field: a bound far above any real domain
  // that keeps every size and index within 64 bits and the twiddle table within 2^20 elements.
  static constexpr unsigned kMaxLogSize = F::S < 40 ? F::S : 40;

  // The domain of size 2^log_size. Error when log_size > kMaxLogSize (the field's 2-adicity).
  explicit Domain(unsigned log_size);
  // The domain of size exactly n (a power of two), or the smallest one holding at least n points.
  static Domain of_size(size_t n);
  static Domain at_least(size_t n);

  size_t size() const { return n_; }
  unsigned log_size() const { return k_; }
  const F& omega() const { return omega_; }
  const F& omega_inv() const { return omega_inv_; }
  const F& size_inv() const { return n_inv_; }  // 1/n
  // ω^i (i is taken mod n).
  F element(size_t i) const;

  // Coefficients -> evaluations at ω^i (forward) and back (inverse, including the 1/n).
  void ntt(std::span<F> a, Order order = Order::NN) const;
  void intt(std::span<F> a, Order order = Order::NN) const;
  // Coefficients -> evaluations at shift·ω^i, and back. shift must be non-zero.
  void coset_ntt(std::span<F> a, const F& shift, Order order = Order::NN) const;
  void coset_intt(std::span<F> a, const F& shift, Order order = Order::NN) const;

  // The snarkjs H step. The odd coset is shift·H with shift = ω_2n = F::root_of_unity(k + 1)
  // (so the points are ω_2n^(2i+1)), except when k = S, where no 2n-th root exists and snarkjs
  // (ffjavascript's Fr.shift) uses shift = g^2 for the non-residue g of root_of_unity.
  F odd_coset_shift() const;
  // Evaluations on H (natural order) -> evaluations of the same polynomial (degree < n) at
  // shift·ω^i (natural order): inverse NTT (NR), scale coefficient j by shift^j, NTT (RN) - no
  // bit-reversal pass.
  void to_odd_coset(std::span<F> evals) const;
  // What the Groth16 prover feeds to the H MSM: a, b, c evaluations on H are moved to the odd
  // coset and a <- a·b - c there (b, c keep their coset evaluations). On the coset Z(x) = x^n - 1
  // is the constant shift^n - 1 (-2 for ω_2n), which snarkjs's H points absorb.
  void ab_minus_c_on_odd_coset(std::span<F> a, std::span<F> b, std::span<F> c) const;

  // Z(x) = x^n - 1, the vanishing polynomial of H.
  F vanishing_at(const F& x) const;
  // L_i(τ) for i < n, natural order: L_i(τ) = (τ^n - 1)/n · ω^i/(τ - ω^i), by one batch inversion
  // per thread; for τ in H, L_i(τ) = [τ = ω^i].
  std::vector<F> lagrange_at(const F& tau) const;
  void lagrange_at(const F& tau, std::span<F> out) const;

 private:
  void check(std::span<const F> a, const char* op) const;

  unsigned k_;
  size_t n_;
  F omega_, omega_inv_, n_inv_;
  std::shared_ptr<const detail::Plan<F>> plan_;  // shared by copies; twiddles and root powers
};

extern template class Domain<bls12_381::Fr>;
extern template class Domain<bn254::Fr>;

}  // namespace splitprove::poly

#pragma once
// Number-theoretic transforms over a curve's Fr (BLS12-381, BN254) on the GPU, and the Groth16 H
// step built on them. The same transforms and conventions as poly::Domain (src/poly/domain.hpp): ω
// = Fr::root_of_unity(k), the forward transform maps coefficients to evaluations at ω^i, the
// inverse includes 1/n, a coset transform with shift g evaluates at g·ω^i, and poly::Order names
// the input and output orders.
//
// How (ntt.cu): radix-2 butterflies, grouped so that one kernel runs up to 10 consecutive stages on
// a tile of 1024 elements in shared memory (3 passes over the data at 2^24, 4 at 2^26). Forward and
// inverse natural->bit-reversed are decimation in frequency (DIF), bit-reversed->natural are
// decimation in time (DIT): NR and RN need no permutation, NN and RR add one bit-reversal pass
// (tiled through shared memory: 16x16 tiles, whole 512-byte runs read and written).
// Coset and 1/n scalings are fused into the first (pre) or last (post) pass. The stage twiddles
// ω_2h^j (j < h, every h) are precomputed on the device once per size: n elements per direction.
//
// Data are device arrays of n Fr elements in Montgomery form (4 little-endian 64-bit limbs each,
// the host's Fr::mont() layout). Errors: splitprove::Error (sizes out of range, CUDA failures).
// CUDA-free header.
#include <cstddef>
#include <cstdint>
#include <span>

#include "cuda/pool.hpp"
#include "ec/bls12_381.hpp"
#include "ec/bn254.hpp"
#include "poly/ntt.hpp"

namespace splitprove::cuda {

// Over a curve's scalar field HostFr (instantiated in ntt.cu for BLS12-381 and BN254: FrNtt,
// Bn254FrNtt). Sizes up to 2^28 (BN254's two-adicity).
template <class HostFr>
class FrNttOf {
 public:
  using Fr = HostFr;
  static constexpr unsigned kMaxLogSize = 28;

  // The domain of size 2^log_size (1 <= log_size <= 28); its twiddles go into `pool`.
  FrNttOf(DevicePool& pool, unsigned log_size);

  unsigned log_size() const { return k_; }
  size_t size() const { return size_t(1) << k_; }

  // In place on device data `d` (n elements).
  void ntt(Fr* d, poly::Order order, CUstream_st* stream = nullptr) const;
  void intt(Fr* d, poly::Order order, CUstream_st* stream = nullptr) const;
  void coset_ntt(Fr* d, const Fr& shift, poly::Order order, CUstream_st* stream = nullptr) const;
  void coset_intt(Fr* d, const Fr& shift, poly::Order order, CUstream_st* stream = nullptr) const;

  // poly::Domain::to_odd_coset and ab_minus_c_on_odd_coset on device data: a <- a·b - c on the odd
  // coset, b and c left holding their coset evaluations (inverse NR, scale, forward RN: no
  // bit-reversal pass). These are the scalars of the H MSM, written in place of a.
  void to_odd_coset(Fr* d, CUstream_st* stream = nullptr) const;
  // c <- a∘b element-wise (n elements each): the GPU stage's c, which the host does not keep (for
  // a satisfying assignment c = a∘b on every row of the domain).
  void product(const Fr* a, const Fr* b, Fr* c, CUstream_st* stream = nullptr) const;
  void ab_minus_c_on_odd_coset(Fr* a, Fr* b, Fr* c, CUstream_st* stream = nullptr) const;

  // poly::h_coefficients on device data: the H step of keys with the monomial H basis
  // τ^i·Z(τ)/δ. a <- the n coefficients of h = (A·B - C)/Z in natural order (Montgomery form: the
  // H MSM's scalars; the last is 0 for a satisfied system), b and c clobbered. 7 NTTs: the three
  // to_odd_coset, then one pass that forms a·b - c and bit-reverses it (tiled), then the coset
  // inverse (RN) with 1/n·1/(g^n - 1)·g^-j fused into its last pass.
  void h_coefficients(Fr* a, Fr* b, Fr* c, CUstream_st* stream = nullptr) const;

  // The bit-reversal permutation in place. tiled = false: the element-wise swap (the reference
  // the benchmark compares with; also what sizes below 2^8 use).
  void bit_reverse(Fr* d, CUstream_st* stream = nullptr, bool tiled = true) const;

  // Host conveniences (copy in, run, copy out; synchronous): for tests and small callers.
  void ntt_host(std::span<Fr> a, poly::Order order, bool inverse, const Fr* coset_shift) const;
  void ab_minus_c_host(std::span<Fr> a, std::span<Fr> b, std::span<Fr> c) const;
  void h_coefficients_host(std::span<Fr> a, std::span<Fr> b, std::span<Fr> c) const;

 private:
  struct Scale;  // a scaling fused into a pass (see ntt.cu)
  void run(Fr* d, bool inverse, poly::Order order, const Scale* pre, const Scale* post,
           CUstream_st* stream) const;
  DeviceBlock scale_tables(const Fr& c, const Fr& g) const;

  DevicePool& pool_;
  unsigned k_;
  DeviceBlock tw_fwd_, tw_inv_;  // tw[h + j] = ω_2h^j (or its inverse), h = 2^e < n, j < h
  DeviceBlock inv_tables_;       // the inverse's post-scale n^-1 (made once: per call, building
                                 // them on the host cost ~0.9 ms, 2026-12-02 H200 run)
  DeviceBlock odd_tables_;       // the odd-coset post-scale of the inverse: n^-1·shift^j
  DeviceBlock h_tables_;         // h_coefficients' post-scale: n^-1·(g^n - 1)^-1·g^-j
  Fr n_inv_;
};

using FrNtt = FrNttOf<bls12_381::Fr>;
using Bn254FrNtt = FrNttOf<bn254::Fr>;

}  // namespace splitprove::cuda

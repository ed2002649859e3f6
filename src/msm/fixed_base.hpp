#pragma once
// Fixed-base scalar multiplication: many k_i·G for one base G (the development setup turns
// millions of toxic-waste polynomial evaluations into key points this way).
//
// Table: for windows w = 0..W-1 of c bits, T[w][d-1] = d·2^(c·w)·G for d = 1..2^c - 1, so
// k·G = Σ_w T[w][digit_w(k)] costs W = ceil(bits/c) mixed additions and no doublings.
// c is chosen from the number of products (window_for): e.g. c = 12 for ~2^16 uses: 22 windows ×
// 4095 points (8.6 MiB of G1 affine points, twice that for G2), 21 additions per product. This path branches on scalar digits; it is for
// public or development-only (insecure) scalars — secrets use Curve::mul_ct.
#include <span>
#include <vector>

#include "util/parallel.hpp"

namespace splitprove::msm {

template <class Curve>
class FixedBaseTable {
 public:
  using Affine = typename Curve::Affine;
  using Jacobian = typename Curve::Jacobian;
  using Fr = typename Curve::Fr;

  // The window minimising table building plus use: ceil(bits/c)·(2^c + uses) additions.
  static unsigned window_for(size_t uses) {
    unsigned best = 1;
    double best_cost = 1e300;
    for (unsigned c = 1; c <= 16; ++c) {
      double cost = double((Fr::BITS + c - 1) / c) * (double(size_t(1) << c) + double(uses));
      if (cost < best_cost) best_cost = cost, best = c;
    }
    return best;
  }

  explicit FixedBaseTable(const Affine& g, unsigned c = 12) : c_(c) {
    windows_ = unsigned((Fr::BITS + c - 1) / c);
    const size_t per = (size_t(1) << c) - 1;
    table_.resize(size_t(windows_) * per);
    // Row w starts at base_w = 2^(c·w)·G; entries are base_w, 2·base_w, ... (built in Jacobian form
    // in parallel per window, then converted with one inversion per window).
    std::vector<Jacobian> bases(windows_);
    Jacobian b = g.to_jacobian();
    for (unsigned w = 0; w < windows_; ++w) {
      bases[w] = b;
      for (unsigned i = 0; i < c; ++i) b = b.dbl();
    }
    util::parallel_for(windows_, [&](size_t w0, size_t w1) {
      std::vector<Jacobian> row(per);
      for (size_t w = w0; w < w1; ++w) {
        row[0] = bases[w];
        for (size_t d = 1; d < per; ++d) row[d] = row[d - 1] + bases[w];
        Curve::batch_to_affine(row, std::span<Affine>(table_.data() + w * per, per));
      }
    });
  }

  Jacobian mul(const Fr& k) const {
    const auto e = k.to_canonical();
    const size_t per = (size_t(1) << c_) - 1;
    Jacobian acc = Jacobian::identity();
    for (unsigned w = 0; w < windows_; ++w) {
      uint64_t d = 0;
      for (unsigned i = 0; i < c_; ++i) d |= uint64_t(ff::bit(e, size_t(w) * c_ + i)) << i;
      if (d) acc += table_[w * per + d - 1];
    }
    return acc;
  }

  // out[i] = ks[i]·G in affine form, on all cores.
  void mul_batch(std::span<const Fr> ks, std::span<Affine> out) const {
    util::parallel_for(
        ks.size(),
        [&](size_t b, size_t e) {
          constexpr size_t kBlock = 1024;  // one inversion per block of points
          std::vector<Jacobian> tmp;
          for (size_t s = b; s < e; s += kBlock) {
            const size_t n = std::min(kBlock, e - s);
            tmp.resize(n);
            for (size_t i = 0; i < n; ++i) tmp[i] = mul(ks[s + i]);
            Curve::batch_to_affine(tmp, out.subspan(s, n));
          }
        },
        /*min_chunk=*/1024, /*chunks=*/4 * util::num_threads());
  }

 private:
  unsigned c_, windows_;
  std::vector<Affine> table_;
};

}  // namespace splitprove::msm

#pragma once
// Host-callable G1 (BLS12-381) point arithmetic on the GPU (plain C++: no CUDA types): the test
// entries of the device curve code that the MSM kernels will be built on.
//
// Coordinates are Fp elements in Montgomery form, 6 little-endian 64-bit limbs each (the host's
// `Fp::mont()` limbs), points back to back:
//   affine: x, y            (12 limbs); (0, 0) stands for the point at infinity
//   XYZZ:   X, Y, ZZ, ZZZ   (24 limbs); x = X/ZZ, y = Y/ZZZ, ZZ = 0 is infinity
// Every coordinate must be < p (checked on the GPU; the first offender is named). Points are not
// checked to be on the curve. CUDA failures throw splitprove::Error naming the call and file:line.
#include <cstddef>
#include <cstdint>

namespace splitprove::cuda {

inline constexpr size_t kG1AffineLimbs = 12;
inline constexpr size_t kG1XyzzLimbs = 24;

// out_xyzz (24 limbs) = the sum of n affine points: per-thread mixed additions, then a tree of
// XYZZ additions in shared memory, then one block over the per-block sums.
void g1_sum_affine(const uint64_t* points, size_t n, uint64_t* out_xyzz);

// Elementwise, i < n: out[i] = p[i] + q[i] (XYZZ + XYZZ), p[i] + q[i] (XYZZ + affine), 2·p[i].
void g1_xyzz_add(const uint64_t* p, const uint64_t* q, uint64_t* out, size_t n);
void g1_xyzz_add_affine(const uint64_t* p, const uint64_t* q, uint64_t* out, size_t n);
void g1_xyzz_dbl(const uint64_t* p, uint64_t* out, size_t n);

}  // namespace splitprove::cuda

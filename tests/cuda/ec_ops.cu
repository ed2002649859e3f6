// G1 kernels behind ec_ops.hpp (test-only: the tests' library, not the backend).
#include <string>

#include "cuda/ec.cuh"
#include "ec_ops.hpp"
#include "cuda/kernels.cuh"
#include "cuda/runtime.cuh"
#include "ec/bls12_381.hpp"

namespace splitprove::cuda {
namespace {

// BLS12-381 G1 over the field with called products.
using FpNoinline = DevField<bls12_381::Fp, false>;
using Affine = AffinePoint<FpNoinline>;
using Xyzz = XyzzPoint<FpNoinline>;
static_assert(sizeof(Affine) == 96 && sizeof(Xyzz) == 192);
static_assert(sizeof(Affine) == kG1AffineLimbs * 8 && sizeof(Xyzz) == kG1XyzzLimbs * 8);

// 128 threads: the block's tree works on 128 XYZZ points = 24 KiB of shared memory.
constexpr unsigned kSumThreads = 128;
// Per-block sums of the first stage; the second stage (one block) adds at most this many.
constexpr unsigned kMaxSumBlocks = 1024;

// Adds sh[0..kSumThreads) into sh[0]; all threads of the block take part.
__device__ void block_tree_sum(Xyzz* sh) {
  const unsigned t = threadIdx.x;
  __syncthreads();
#pragma unroll 1
  for (unsigned s = kSumThreads / 2; s > 0; s >>= 1) {
    if (t < s) {
      Xyzz a = sh[t];
      a += sh[t + s];
      sh[t] = a;
    }
    __syncthreads();
  }
}

__global__ void __launch_bounds__(kSumThreads)
    sum_affine_kernel(const Affine* pts, size_t n, Xyzz* partial) {
  __shared__ Xyzz sh[kSumThreads];
  Xyzz acc = Xyzz::infinity();
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    acc += load_affine<FpNoinline>(pts + i);
  sh[threadIdx.x] = acc;
  block_tree_sum(sh);
  if (threadIdx.x == 0) sh[0].store(partial + blockIdx.x);
}

__global__ void __launch_bounds__(kSumThreads)
    sum_xyzz_kernel(const Xyzz* in, size_t n, Xyzz* out) {
  __shared__ Xyzz sh[kSumThreads];
  Xyzz acc = Xyzz::infinity();
  for (size_t i = threadIdx.x; i < n; i += blockDim.x) acc += Xyzz::load(in + i);
  sh[threadIdx.x] = acc;
  block_tree_sum(sh);
  if (threadIdx.x == 0) sh[0].store(out);
}

enum class PointOp { add, add_affine, dbl };

template <PointOp op>
__global__ void point_kernel(const Xyzz* p, const void* q, Xyzz* out, size_t n) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    Xyzz r = Xyzz::load(p + i);
    if constexpr (op == PointOp::add)
      r += Xyzz::load(static_cast<const Xyzz*>(q) + i);
    else if constexpr (op == PointOp::add_affine)
      r += load_affine<FpNoinline>(static_cast<const Affine*>(q) + i);
    else
      r = r.dbl();
    r.store(out + i);
  }
}

// Checks the coordinates of `count` points of `coords` Fp elements each; names the first bad one.
void check_points(const void* d, size_t count, size_t coords, const char* name,
                  const char* const* coord_names, cudaStream_t s) {
  const size_t total = count * coords;
  size_t i = first_unreduced(static_cast<const FpNoinline*>(d), total, s);
  if (i < total)
    throw Error(std::string(name) + "[" + std::to_string(i / coords) + "]." +
                coord_names[i % coords] + " is not < p (not a reduced field element)");
}
constexpr const char* kAffineNames[] = {"x", "y"};
constexpr const char* kXyzzNames[] = {"X", "Y", "ZZ", "ZZZ"};

template <PointOp op>
void point_op(const char* what, const uint64_t* p, const uint64_t* q, uint64_t* out, size_t n) {
  with_context(what, [&] {
    if (n == 0) return;
    const bool binary = op != PointOp::dbl;
    if (!p || !out || (binary && !q))
      throw Error("null array for " + std::to_string(n) + " points");
    Stream s;
    DeviceBuffer<Xyzz> dp(n), dout(n);
    dp.upload(reinterpret_cast<const Xyzz*>(p), s);
    check_points(dp.get(), n, 4, "p", kXyzzNames, s);
    DeviceBuffer<Xyzz> dq_xyzz(op == PointOp::add ? n : 0);
    DeviceBuffer<Affine> dq_aff(op == PointOp::add_affine ? n : 0);
    const void* dq = nullptr;
    if constexpr (op == PointOp::add) {
      dq_xyzz.upload(reinterpret_cast<const Xyzz*>(q), s);
      check_points(dq_xyzz.get(), n, 4, "q", kXyzzNames, s);
      dq = dq_xyzz.get();
    } else if constexpr (op == PointOp::add_affine) {
      dq_aff.upload(reinterpret_cast<const Affine*>(q), s);
      check_points(dq_aff.get(), n, 2, "q", kAffineNames, s);
      dq = dq_aff.get();
    }
    point_kernel<op><<<grid_for(n, 128), 128, 0, s>>>(dp.get(), dq, dout.get(), n);
    SPLITPROVE_CUDA_CHECK_LAUNCH();
    dout.download(reinterpret_cast<Xyzz*>(out), s);
    s.sync();
  });
}

}  // namespace

void g1_sum_affine(const uint64_t* points, size_t n, uint64_t* out_xyzz) {
  with_context("cuda::g1_sum_affine", [&] {
    if (!out_xyzz || (n && !points)) throw Error("null array for " + std::to_string(n) + " points");
    Stream s;
    const size_t blocks_wanted = (n + kSumThreads - 1) / kSumThreads;
    const unsigned blocks = unsigned(
        blocks_wanted < kMaxSumBlocks ? (blocks_wanted ? blocks_wanted : 1) : kMaxSumBlocks);
    DeviceBuffer<Affine> dpts(n);
    DeviceBuffer<Xyzz> partial(blocks), dout(1);
    dpts.upload(reinterpret_cast<const Affine*>(points), s);
    check_points(dpts.get(), n, 2, "points", kAffineNames, s);
    sum_affine_kernel<<<blocks, kSumThreads, 0, s>>>(dpts.get(), n, partial.get());
    SPLITPROVE_CUDA_CHECK_LAUNCH();
    sum_xyzz_kernel<<<1, kSumThreads, 0, s>>>(partial.get(), blocks, dout.get());
    SPLITPROVE_CUDA_CHECK_LAUNCH();
    dout.download(reinterpret_cast<Xyzz*>(out_xyzz), s);
    s.sync();
  });
}

void g1_xyzz_add(const uint64_t* p, const uint64_t* q, uint64_t* out, size_t n) {
  point_op<PointOp::add>("cuda::g1_xyzz_add", p, q, out, n);
}
void g1_xyzz_add_affine(const uint64_t* p, const uint64_t* q, uint64_t* out, size_t n) {
  point_op<PointOp::add_affine>("cuda::g1_xyzz_add_affine", p, q, out, n);
}
void g1_xyzz_dbl(const uint64_t* p, uint64_t* out, size_t n) {
  point_op<PointOp::dbl>("cuda::g1_xyzz_dbl", p, nullptr, out, n);
}

}  // namespace splitprove::cuda

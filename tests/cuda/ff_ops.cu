// Elementwise field kernels behind ff_ops.hpp (test-only: the tests' library, not the backend).
#include <string>

#include "cuda/ff.cuh"
#include "ff_ops.hpp"
#include "cuda/kernels.cuh"
#include "cuda/runtime.cuh"
#include "ec/bls12_381.hpp"

namespace splitprove::cuda {

using Fr = DevField<bls12_381::Fr>;
using Fp = DevField<bls12_381::Fp>;

const char* field_op_name(FieldOp op) {
  switch (op) {
    case FieldOp::add:
      return "add";
    case FieldOp::sub:
      return "sub";
    case FieldOp::mul:
      return "mul";
    case FieldOp::sqr:
      return "sqr";
    case FieldOp::neg:
      return "neg";
    case FieldOp::dbl:
      return "dbl";
    case FieldOp::to_mont:
      return "to_mont";
    case FieldOp::from_mont:
      return "from_mont";
  }
  return "?";
}

bool field_op_is_unary(FieldOp op) {
  return !(op == FieldOp::add || op == FieldOp::sub || op == FieldOp::mul);
}

namespace {

template <class F, FieldOp op>
__device__ __forceinline__ F apply_one(const F& a, const F& b) {
  if constexpr (op == FieldOp::add)
    return a + b;
  else if constexpr (op == FieldOp::sub)
    return a - b;
  else if constexpr (op == FieldOp::mul)
    return a * b;
  else if constexpr (op == FieldOp::sqr)
    return a.sqr();
  else if constexpr (op == FieldOp::neg)
    return -a;
  else if constexpr (op == FieldOp::dbl)
    return a.dbl();
  else if constexpr (op == FieldOp::to_mont)
    return a.to_mont();
  else
    return a.from_mont();
}

template <class F, FieldOp op>
__global__ void apply_kernel(const F* a, const F* b, F* out, size_t n) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    const F x = F::load(a + i);
    const F y = b ? F::load(b + i) : x;
    apply_one<F, op>(x, y).store(out + i);
  }
}

template <class F>
__global__ void eq_kernel(const F* a, const F* b, uint8_t* out, size_t n) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    out[i] = F::load(a + i) == F::load(b + i) ? 1 : 0;
}

template <class F>
void launch(FieldOp op, const F* a, const F* b, F* out, size_t n, cudaStream_t s) {
  constexpr unsigned kThreads = 256;
  const unsigned blocks = grid_for(n, kThreads);
  switch (op) {
#define SPLITPROVE_CASE(o)                                                 \
  case FieldOp::o:                                                         \
    apply_kernel<F, FieldOp::o><<<blocks, kThreads, 0, s>>>(a, b, out, n); \
    break;
    SPLITPROVE_CASE(add)
    SPLITPROVE_CASE(sub)
    SPLITPROVE_CASE(mul)
    SPLITPROVE_CASE(sqr)
    SPLITPROVE_CASE(neg)
    SPLITPROVE_CASE(dbl)
    SPLITPROVE_CASE(to_mont)
    SPLITPROVE_CASE(from_mont)
#undef SPLITPROVE_CASE
  }
  SPLITPROVE_CUDA_CHECK_LAUNCH();
}

template <class F>
void apply(const char* field, FieldOp op, const uint64_t* a, const uint64_t* b, uint64_t* out,
           size_t n) {
  const std::string what = std::string("cuda::") + field + "_" + field_op_name(op);
  with_context(what.c_str(), [&] {
    if (n == 0) return;
    const bool unary = field_op_is_unary(op);
    if (!a || !out || (!unary && !b))
      throw Error("null array for " + std::to_string(n) + " elements");
    Stream s;
    DeviceBuffer<F> da(n), db(unary ? 0 : n), dout(n);
    da.upload(reinterpret_cast<const F*>(a), s);
    if (!unary) db.upload(reinterpret_cast<const F*>(b), s);
    check_reduced<F>(da.get(), n, "a", s);
    if (!unary) check_reduced<F>(db.get(), n, "b", s);
    launch<F>(op, da.get(), unary ? nullptr : db.get(), dout.get(), n, s);
    dout.download(reinterpret_cast<F*>(out), s);
    s.sync();
  });
}

template <class F>
void eq(const char* field, const uint64_t* a, const uint64_t* b, uint8_t* out, size_t n) {
  const std::string what = std::string("cuda::") + field + "_eq";
  with_context(what.c_str(), [&] {
    if (n == 0) return;
    if (!a || !b || !out) throw Error("null array for " + std::to_string(n) + " elements");
    Stream s;
    DeviceBuffer<F> da(n), db(n);
    DeviceBuffer<uint8_t> dout(n);
    da.upload(reinterpret_cast<const F*>(a), s);
    db.upload(reinterpret_cast<const F*>(b), s);
    check_reduced<F>(da.get(), n, "a", s);
    check_reduced<F>(db.get(), n, "b", s);
    eq_kernel<F><<<grid_for(n, 256), 256, 0, s>>>(da.get(), db.get(), dout.get(), n);
    SPLITPROVE_CUDA_CHECK_LAUNCH();
    dout.download(out, s);
    s.sync();
  });
}

}  // namespace

void fr_apply(FieldOp op, const uint64_t* a, const uint64_t* b, uint64_t* out, size_t n) {
  apply<Fr>("fr", op, a, b, out, n);
}
void fp_apply(FieldOp op, const uint64_t* a, const uint64_t* b, uint64_t* out, size_t n) {
  apply<Fp>("fp", op, a, b, out, n);
}
void fr_eq(const uint64_t* a, const uint64_t* b, uint8_t* out, size_t n) {
  eq<Fr>("fr", a, b, out, n);
}
void fp_eq(const uint64_t* a, const uint64_t* b, uint8_t* out, size_t n) {
  eq<Fp>("fp", a, b, out, n);
}

}  // namespace splitprove::cuda

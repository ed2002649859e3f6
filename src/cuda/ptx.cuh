#pragma once
// 32-bit carry-chain primitives: PTX on the device, an exact emulation on the host.
//
// On NVIDIA GPUs multi-precision arithmetic is fastest as chains of 32-bit `mad.lo.cc` /
// `madc.hi.cc` instructions that pass the carry through the condition-code flag CC.CF (the
// IMAD.WIDE/IADD3 paths the compiler picks for 64-bit C++ arithmetic need more instructions per
// limb product). Each primitive here is one PTX instruction in its own volatile asm statement:
// volatile keeps the statements in program order, and no code between them writes CC.CF, so a
// chain may be spread over several statements and loop iterations (fully unrolled).
//
// On the host the same functions run on a thread-local emulated CF with the PTX semantics
// (`.cc` writes CF, `c` reads it, instructions without `.cc` leave it alone; for subtraction
// CF is the borrow). That lets the device field code run, unchanged, under the CPU test suite:
// the carry logic is checked on every machine, not only where a GPU exists.
#include <cstdint>

#if defined(__CUDACC__)
#define SPLITPROVE_HD __host__ __device__ __forceinline__
#define SPLITPROVE_DEV __device__ __forceinline__
#else
#define SPLITPROVE_HD inline
#define SPLITPROVE_DEV inline
#endif

// Full unrolling of limb loops: the device code depends on it (registers are never indexed at
// run time); gcc as nvcc's host compiler does not know the plain pragma.
#if defined(__CUDA_ARCH__) || defined(__clang__)
#define SPLITPROVE_UNROLL _Pragma("unroll")
#else
#define SPLITPROVE_UNROLL
#endif

namespace splitprove::cuda::ptx {

#if !defined(__CUDA_ARCH__)
// The emulated condition-code carry flag (0 or 1) of the calling host thread.
inline thread_local uint32_t emulated_cf = 0;
#endif

#if defined(__CUDA_ARCH__)
#define SPLITPROVE_PTX2(op)                                   \
  uint32_t r;                                                 \
  asm volatile(op " %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); \
  return r
#define SPLITPROVE_PTX3(op)                                               \
  uint32_t r;                                                             \
  asm volatile(op " %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); \
  return r
#endif

// ---- addition: CF = carry ----------------------------------------------------------------------
SPLITPROVE_HD uint32_t add_cc(uint32_t a, uint32_t b) {
#if defined(__CUDA_ARCH__)
  SPLITPROVE_PTX2("add.cc.u32");
#else
  uint64_t t = uint64_t(a) + b;
  emulated_cf = uint32_t(t >> 32);
  return uint32_t(t);
#endif
}
SPLITPROVE_HD uint32_t addc_cc(uint32_t a, uint32_t b) {
#if defined(__CUDA_ARCH__)
  SPLITPROVE_PTX2("addc.cc.u32");
#else
  uint64_t t = uint64_t(a) + b + emulated_cf;
  emulated_cf = uint32_t(t >> 32);
  return uint32_t(t);
#endif
}
SPLITPROVE_HD uint32_t addc(uint32_t a, uint32_t b) {
#if defined(__CUDA_ARCH__)
  SPLITPROVE_PTX2("addc.u32");
#else
  return uint32_t(uint64_t(a) + b + emulated_cf);
#endif
}

// ---- subtraction: CF = borrow ------------------------------------------------------------------
SPLITPROVE_HD uint32_t sub_cc(uint32_t a, uint32_t b) {
#if defined(__CUDA_ARCH__)
  SPLITPROVE_PTX2("sub.cc.u32");
#else
  uint64_t t = uint64_t(a) - b;
  emulated_cf = uint32_t(t >> 63);
  return uint32_t(t);
#endif
}
SPLITPROVE_HD uint32_t subc_cc(uint32_t a, uint32_t b) {
#if defined(__CUDA_ARCH__)
  SPLITPROVE_PTX2("subc.cc.u32");
#else
  uint64_t t = uint64_t(a) - b - emulated_cf;
  emulated_cf = uint32_t(t >> 63);
  return uint32_t(t);
#endif
}
SPLITPROVE_HD uint32_t subc(uint32_t a, uint32_t b) {
#if defined(__CUDA_ARCH__)
  SPLITPROVE_PTX2("subc.u32");
#else
  return uint32_t(uint64_t(a) - b - emulated_cf);
#endif
}

// ---- products: lo/hi halves of the 64-bit product a·b ------------------------------------------
SPLITPROVE_HD uint32_t mul_lo(uint32_t a, uint32_t b) { return a * b; }
SPLITPROVE_HD uint32_t mul_hi(uint32_t a, uint32_t b) {
#if defined(__CUDA_ARCH__)
  return __umulhi(a, b);
#else
  return uint32_t((uint64_t(a) * b) >> 32);
#endif
}

// lo(a·b) + c, CF = carry
SPLITPROVE_HD uint32_t mad_lo_cc(uint32_t a, uint32_t b, uint32_t c) {
#if defined(__CUDA_ARCH__)
  SPLITPROVE_PTX3("mad.lo.cc.u32");
#else
  uint64_t t = uint64_t(a * b) + c;
  emulated_cf = uint32_t(t >> 32);
  return uint32_t(t);
#endif
}
// lo(a·b) + c + CF, CF = carry
SPLITPROVE_HD uint32_t madc_lo_cc(uint32_t a, uint32_t b, uint32_t c) {
#if defined(__CUDA_ARCH__)
  SPLITPROVE_PTX3("madc.lo.cc.u32");
#else
  uint64_t t = uint64_t(a * b) + c + emulated_cf;
  emulated_cf = uint32_t(t >> 32);
  return uint32_t(t);
#endif
}
// hi(a·b) + c + CF, CF = carry
SPLITPROVE_HD uint32_t madc_hi_cc(uint32_t a, uint32_t b, uint32_t c) {
#if defined(__CUDA_ARCH__)
  SPLITPROVE_PTX3("madc.hi.cc.u32");
#else
  uint64_t t = uint64_t(mul_hi(a, b)) + c + emulated_cf;
  emulated_cf = uint32_t(t >> 32);
  return uint32_t(t);
#endif
}
// hi(a·b) + c + CF, CF untouched (the caller knows the sum fits)
SPLITPROVE_HD uint32_t madc_hi(uint32_t a, uint32_t b, uint32_t c) {
#if defined(__CUDA_ARCH__)
  SPLITPROVE_PTX3("madc.hi.u32");
#else
  return uint32_t(uint64_t(mul_hi(a, b)) + c + emulated_cf);
#endif
}

#undef SPLITPROVE_PTX2
#undef SPLITPROVE_PTX3

}  // namespace splitprove::cuda::ptx

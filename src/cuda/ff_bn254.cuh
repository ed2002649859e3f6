#pragma once
// BN254's fields for device code: the same Montgomery template as BLS12-381's (cuda/ff.cuh), with
// both fields over 8 32-bit limbs (4 host 64-bit limbs). The constants are split from the host
// fields' (ec/bn254.hpp) at compile time, never written here; the device copies live in constant
// memory, one per translation unit, as for BLS12-381. Fp2 = Fp[u]/(u^2 + 1) as for BLS12-381, so
// G2 coordinates are Fp2Dev over this Fp.
#include "cuda/ff.cuh"
#include "cuda/fp2.cuh"
#include "ec/bn254.hpp"

namespace splitprove::cuda::bn254_dev {

inline constexpr MontConsts<8> kFrConstsHost = mont_consts_of<bn254::Fr>();
inline constexpr MontConsts<8> kFpConstsHost = mont_consts_of<bn254::Fp>();

// Mont's product needs a spare bit (top 32-bit limb < 2^31; BN254's primes are < 2^254).
static_assert(kFrConstsHost.mod[7] < (1u << 31) && kFpConstsHost.mod[7] < (1u << 31));
static_assert(uint32_t(kFrConstsHost.m0 * kFrConstsHost.mod[0]) == 0xffffffffu);
static_assert(uint32_t(kFpConstsHost.m0 * kFpConstsHost.mod[0]) == 0xffffffffu);

#if defined(__CUDACC__)
static __constant__ MontConsts<8> kFrConstsDev = mont_consts_of<bn254::Fr>();
static __constant__ MontConsts<8> kFpConstsDev = mont_consts_of<bn254::Fp>();
#endif

struct FrTraits {
  static constexpr size_t n = 8;
  using Host = bn254::Fr;
  SPLITPROVE_HD static const MontConsts<8>& c() {
#if defined(__CUDA_ARCH__)
    return kFrConstsDev;
#else
    return kFrConstsHost;
#endif
  }
};

struct FpTraits {
  static constexpr size_t n = 8;
  using Host = bn254::Fp;
  SPLITPROVE_HD static const MontConsts<8>& c() {
#if defined(__CUDA_ARCH__)
    return kFpConstsDev;
#else
    return kFpConstsHost;
#endif
  }
};

using Fr = Mont<FrTraits>;
using Fp = Mont<FpTraits>;
using FpNoinline = Mont<FpTraits, false>;
using Fp2NoinlineDev = Fp2Dev<FpNoinline>;
using Fp2CallDev = Fp2Dev<FpNoinline, true>;
static_assert(sizeof(Fr) == sizeof(bn254::Fr) && sizeof(Fp) == sizeof(bn254::Fp));
static_assert(sizeof(Fp2NoinlineDev) == sizeof(bn254::Fp2));

}  // namespace splitprove::cuda::bn254_dev

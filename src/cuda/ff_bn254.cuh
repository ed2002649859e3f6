#pragma once
// BN254's fields for device code: the same Montgomery template as BLS12-381's (cuda/ff.cuh), with
// both fields over 8 32-bit limbs (4 host 64-bit limbs). The constants are split from the host
// fields' (ec/bn254.hpp) at compile time by cuda/ff.cuh's FieldTraits, as for BLS12-381.
// Fp2 = Fp[u]/(u^2 + 1) as for BLS12-381, so G2 coordinates are Fp2Dev over this Fp.
#include "cuda/ff.cuh"
#include "cuda/fp2.cuh"
#include "ec/bn254.hpp"

namespace splitprove::cuda::bn254_dev {

using FrTraits = FieldTraits<bn254::Fr>;
using FpTraits = FieldTraits<bn254::Fp>;

using Fr = Mont<FrTraits>;
using Fp = Mont<FpTraits>;
using FpNoinline = Mont<FpTraits, false>;
using Fp2NoinlineDev = Fp2Dev<FpNoinline>;
using Fp2CallDev = Fp2Dev<FpNoinline, true>;
static_assert(sizeof(Fr) == sizeof(bn254::Fr) && sizeof(Fp) == sizeof(bn254::Fp));
static_assert(sizeof(Fp2NoinlineDev) == sizeof(bn254::Fp2));

}  // namespace splitprove::cuda::bn254_dev

// The MSM templates for BN254 G1 and G2 (compiled once here; users include msm/msm.hpp).
#include "ec/bn254.hpp"
#include "msm/msm_impl.hpp"

namespace splitprove::msm {

#define SPLITPROVE_MSM_INSTANTIATE(C)                                                              \
  template C::Jacobian msm<C>(std::span<const C::Affine>, std::span<const C::Fr>, const Options&); \
  template C::Jacobian msm_canonical<C>(std::span<const C::Affine>, std::span<const Limbs<C>>,     \
                                        const Options&);                                           \
  template std::vector<C::Jacobian> msm_batch<C>(                                                  \
      std::span<const C::Affine>, std::span<const std::span<const C::Fr>>, const Options&);        \
  template std::vector<C::Jacobian> msm_batch_canonical<C>(                                        \
      std::span<const C::Affine>, std::span<const std::span<const Limbs<C>>>, const Options&);     \
  template size_t scratch_bytes<C>(size_t, size_t, const Options&);                                \
  template C::Jacobian msm_naive<C>(std::span<const C::Affine>, std::span<const C::Fr>);

SPLITPROVE_MSM_INSTANTIATE(bn254::G1)
SPLITPROVE_MSM_INSTANTIATE(bn254::G2)

#undef SPLITPROVE_MSM_INSTANTIATE

}  // namespace splitprove::msm

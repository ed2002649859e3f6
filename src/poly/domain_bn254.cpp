// poly::Domain over BN254's scalar field (2-adicity 28: domains up to 2^28).
#include "ec/bn254.hpp"
#include "poly/domain_impl.hpp"

namespace splitprove::poly {

template class Domain<bn254::Fr>;

}  // namespace splitprove::poly

// The one instantiation of poly::Domain the library ships: BLS12-381's scalar field.
#include "ec/bls12_381.hpp"
#include "poly/domain_impl.hpp"

namespace splitprove::poly {

template class Domain<bls12_381::Fr>;

}  // namespace splitprove::poly

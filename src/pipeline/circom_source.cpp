#include "pipeline/circom_source.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "splitprove/error.hpp"
#include "ec/curves.hpp"
#include "zk/stages.hpp"

namespace splitprove::pipeline {

template <class E>
CircomSource<E>::CircomSource(std::shared_ptr<const zk::ProvingKey<E>> pk,
                              std::vector<io::Witness<E>> witnesses,
                              std::shared_ptr<const io::R1cs<E>> r1cs, std::string name)
    : pk_(std::move(pk)),
      witnesses_(std::move(witnesses)),
      r1cs_(std::move(r1cs)),
      name_(std::move(name)) {
  if (!pk_) throw Error(fmt::format("{}: no proving key", name_));
  for (const auto& w : witnesses_)
    io::check_witness_length<E>(w, pk_->n_vars, name_, "proving key");
  if (r1cs_ && (r1cs_->n_wires != pk_->n_vars || r1cs_->n_public() != pk_->n_public))
    throw Error(fmt::format("{}: {} has {} wires ({} public), the proving key {} ({} public)",
                            name_, r1cs_->source, r1cs_->n_wires, r1cs_->n_public(), pk_->n_vars,
                            pk_->n_public));
  shape_.n_vars = pk_->n_vars;
  shape_.n_public = pk_->n_public;
  shape_.domain_size = pk_->domain_size;
  if (r1cs_) {
    shape_.n_constraints = r1cs_->n_constraints;
  } else {  // the key's rows are the constraints, then n_public + 1 public-binding rows
    std::size_t rows = 0;
    for (std::size_t k = 0; k < pk_->coeffs.size(); ++k)
      rows = std::max<std::size_t>(rows, pk_->coeffs[k].row + 1);
    shape_.n_constraints = rows > pk_->n_public + 1 ? rows - pk_->n_public - 1 : 0;
  }
  shape_.scratch_bytes = 0;  // synthesis writes straight into the engine's buffers
}

template <class E>
void CircomSource<E>::synthesize(std::size_t partition, std::span<Fr> z, std::span<Fr> a,
                                 std::span<Fr> b, const std::stop_token& stop) const {
  if (partition >= witnesses_.size())
    throw Error(fmt::format("{}: partition {} of {}", name_, partition, witnesses_.size()));
  const auto& w = witnesses_[partition];
  if (z.size() != w.values.size())
    throw Error(fmt::format("{}: partition {}: z has {} slots, {} has {} values", name_, partition,
                            z.size(), w.source, w.values.size()));
  std::copy(w.values.begin(), w.values.end(), z.begin());
  if (stop.stop_requested()) return;
  if (r1cs_) {
    if (auto bad = zk::first_unsatisfied<E>(*r1cs_, w.values))
      throw Error(
          fmt::format("{}: partition {}: {} does not satisfy {}: constraint {} of {} fails "
                      "(A·w)(B·w) = C·w",
                      name_, partition, w.source, r1cs_->source, *bad, r1cs_->n_constraints));
    if (stop.stop_requested()) return;
  }
  zk::evaluate_ab<E>(*pk_, z, a, b);
}

#define SPLITPROVE_CIRCOM_SOURCE_INSTANTIATE(E) template class CircomSource<E>;
SPLITPROVE_FOR_EACH_ENGINE(SPLITPROVE_CIRCOM_SOURCE_INSTANTIATE)
#undef SPLITPROVE_CIRCOM_SOURCE_INSTANTIATE

}  // namespace splitprove::pipeline

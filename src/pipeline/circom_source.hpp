#pragma once
// A PartitionSource for circom inputs: one proving key (.zkey) and one witness (.wtns) per
// partition. Synthesis is the witness copied into z, then a = A·z, b = B·z from the key's
// coefficient list (zk::evaluate_ab; no c, which the GPU stage forms as a∘b): the .zkey's
// coefficients already are the precompiled constraint matrices. With the circuit's .r1cs the witness is checked first, and an
// unsatisfied witness fails its partition with the constraint's index; without it, such a witness
// is caught when the partition's proof fails verification.
#include <memory>
#include <string>
#include <vector>

#include "circuit/source.hpp"
#include "io/r1cs.hpp"
#include "io/wtns.hpp"
#include "zk/types.hpp"

namespace splitprove::pipeline {

template <class E>
class CircomSource final : public circuit::PartitionSource<typename E::Fr> {
 public:
  using Fr = typename E::Fr;
  // Throws Error when a witness does not have one value per key variable (naming its file).
  CircomSource(std::shared_ptr<const zk::ProvingKey<E>> pk, std::vector<io::Witness<E>> witnesses,
               std::shared_ptr<const io::R1cs<E>> r1cs = nullptr, std::string name = "circom");

  circuit::Shape shape() const override { return shape_; }
  std::string describe() const override { return name_; }
  std::size_t partitions() const { return witnesses_.size(); }
  void synthesize(std::size_t partition, std::span<Fr> z, std::span<Fr> a, std::span<Fr> b,
                  const std::stop_token& stop) const override;

 private:
  std::shared_ptr<const zk::ProvingKey<E>> pk_;
  std::vector<io::Witness<E>> witnesses_;
  std::shared_ptr<const io::R1cs<E>> r1cs_;
  std::string name_;
  circuit::Shape shape_;
};

}  // namespace splitprove::pipeline

#pragma once
// PartitionSource: where the pipeline gets a partition's assignment and constraint evaluations.
//
// This is the seam between synthesis (src/circuit for native C++ circuits, a circom witness plus a
// .zkey's coefficient list for circom inputs) and the pipeline's synthesis stage (src/pipeline).
//
// Ownership: the pipeline owns every buffer. It sizes them from `shape()` (real vector lengths,
// DESIGN §1.5), carves them out of the partition's admission reservation, and passes spans to
// `synthesize`, which only fills them. A source never allocates a partition-sized buffer of its own
// and never keeps a pointer into the spans after it returns (DESIGN §1.1). Scratch a source needs
// beyond the spans is reported by `shape().scratch_bytes` so the admission reservation covers it.
//
// Conventions are the snarkjs .zkey's (zk/types.hpp, zk/groth16.hpp): z[0] = 1, wires 1..n_public
// are public; a[i], b[i] are the A and B matrices' rows applied to z for every row i < domain_size
// (constraint rows, then the public-binding rows n_constraints + j with A = 1 on wire j for
// j = 0..n_public, then zeros). A source makes no c: c[i] = a[i]·b[i] on every row for a satisfying
// assignment (on constraint rows that is the C row applied to z; the public-binding rows and the
// padding have B = C = 0), so the GPU stage forms it where it needs it and the host never holds it.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <stop_token>
#include <string>
#include <vector>

namespace splitprove::circuit {

struct Shape {
  std::size_t n_vars = 0;         // length of z (wire 0 included)
  std::size_t n_public = 0;       // public wires, not counting wire 0
  std::size_t n_constraints = 0;  // constraint rows (public-binding rows not counted)
  std::size_t domain_size = 0;    // length of a, b: power of two > n_constraints + n_public
  std::uint64_t scratch_bytes = 0;  // extra host bytes synthesize() needs while it runs
  // synthesize() writes every value of z, a and b, so they need not arrive zeroed (the pipeline
  // then skips zeroing recycled buffers: at 2^27 that is 12 GiB a partition). false: they arrive
  // zeroed (a source that accumulates into a, b).
  bool fills_every_value = false;
  // Optional, n_vars flags: the wires whose value is 0 or 1 in every satisfying assignment (e.g.
  // ConstraintSystem::binary). The MSMs skip 0s and 1s, so these bound an MSM's tail and its
  // scratch; null when the source does not know (every wire then counts as any value).
  std::shared_ptr<const std::vector<bool>> binary_wires;
};

// Where a source's synthesis time went, summed over the partitions it synthesized (wall seconds
// per partition, summed): the witness (z), the products a, b, and the check of C·z against a·b.
struct SynthesisPhases {
  std::uint64_t partitions = 0;
  double witness_s = 0, ab_s = 0, check_s = 0;
  SynthesisPhases& operator+=(const SynthesisPhases& o) {
    partitions += o.partitions;
    witness_s += o.witness_s;
    ab_s += o.ab_s;
    check_s += o.check_s;
    return *this;
  }
};

template <class Fr>
class PartitionSource {
 public:
  virtual ~PartitionSource() = default;

  // Same for every partition of a job (all partitions share one proving key).
  virtual Shape shape() const = 0;

  // A name for messages ("porep-2^16", "multiplier.r1cs + w3.wtns").
  virtual std::string describe() const = 0;

  // Fills z (n_vars), a, b (domain_size each; the spans arrive zeroed unless the shape says
  // fills_every_value) for `partition`.
  // Throws splitprove::Error naming the partition and, for an unsatisfied constraint, its index
  // and namespace. Checks `stop` now and then and returns early (contents unspecified) when set.
  // May be called from several threads at once for different partitions.
  virtual void synthesize(std::size_t partition, std::span<Fr> z, std::span<Fr> a,
                          std::span<Fr> b, const std::stop_token& stop) const = 0;

  // The phases of the partitions synthesized so far (all zero when the source does not time them).
  virtual SynthesisPhases phases() const { return {}; }
};

}  // namespace splitprove::circuit

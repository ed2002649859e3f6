// libFuzzer target: the .r1cs reader on arbitrary bytes. Any input must either parse or throw
// splitprove::Error; anything else (a crash, a sanitizer report, another exception) is a bug.
// A parsed circuit must re-encode and parse again to the same shape.
#include <cstdint>
#include <cstdlib>

#include "io/r1cs.hpp"
#include "splitprove/error.hpp"

template <class E>
void fuzz_one(const uint8_t* data, size_t size) {
  try {
    const auto r = splitprove::io::parse_r1cs<E>({data, size}, "fuzz.r1cs");
    const auto again = splitprove::io::parse_r1cs<E>(splitprove::io::encode_r1cs<E>(r), "again");
    if (again.terms.size() != r.terms.size() || again.offsets != r.offsets) std::abort();
    // Exercise the evaluator too, with the all-ones assignment. nWires is a header count that no
    // section bounds (a wire need not occur anywhere), so cap the assignment this harness makes.
    if (r.n_wires <= (1u << 16)) {
      std::vector<typename E::Fr> ones(r.n_wires, E::Fr::one());
      (void)splitprove::zk::first_unsatisfied<E>(r, ones);
    }
  } catch (const splitprove::Error&) {
  }
}

// Both engines see every input: each reader must refuse the other curve's files cleanly too.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz_one<splitprove::ec::Bls12_381>(data, size);
  fuzz_one<splitprove::ec::Bn254>(data, size);
  return 0;
}

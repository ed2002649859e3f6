// libFuzzer target: the snarkjs JSON readers (proof.json, public.json, verification_key.json) on
// arbitrary text; each must parse or throw splitprove::Error. What parses must print and parse
// back to the same value.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "io/json.hpp"
#include "splitprove/error.hpp"

template <class E>
void fuzz_one(const uint8_t* data, size_t size) {
  namespace io = splitprove::io;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto p = io::proof_from_json<E>(text, "proof.json");
    const auto q = io::proof_from_json<E>(io::proof_to_json<E>(p), "again");
    if (!(p.a == q.a && p.b == q.b && p.c == q.c)) std::abort();
  } catch (const splitprove::Error&) {
  }
  try {
    const auto v = io::public_from_json<E>(text, "public.json");
    if (io::public_from_json<E>(io::public_to_json<E>(v), "again") != v) std::abort();
  } catch (const splitprove::Error&) {
  }
  try {
    const auto vk = io::vkey_from_json<E>(text, "verification_key.json");
    const auto again = io::vkey_from_json<E>(io::vkey_to_json<E>(vk), "again");
    if (again.ic.size() != vk.ic.size() || !(again.alpha1 == vk.alpha1)) std::abort();
  } catch (const splitprove::Error&) {
  }
}

// Both engines see every input: each reader must refuse the other curve's files cleanly too.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz_one<splitprove::ec::Bls12_381>(data, size);
  fuzz_one<splitprove::ec::Bn254>(data, size);
  return 0;
}

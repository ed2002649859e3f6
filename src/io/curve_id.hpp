#pragma once
// Identifies the curve of a circom/snarkjs file from the primes it stores (the files carry no curve
// name): r alone for .r1cs/.wtns, q (and r) for .zkey. An engine E accepts a file only if the
// primes are E's; a known other curve gets "is for BN254" rather than "unknown prime", so a caller
// can dispatch (detect_curve) and a mismatch reads clearly.
#include <optional>
#include <span>
#include <string>

#include "ff/bigint.hpp"
#include "ec/curves.hpp"

namespace splitprove::io {

// The curve whose scalar field prime r is `n8` little-endian bytes at `p` (n8 = 32 for both).
std::optional<ec::CurveId> curve_from_r(std::span<const uint8_t> le);
// The curve whose base field prime q is these little-endian bytes (32 for BN254, 48 for BLS12-381).
std::optional<ec::CurveId> curve_from_q(std::span<const uint8_t> le);

// Hex of a little-endian byte string, for messages (most significant first, "0x...").
std::string le_hex(std::span<const uint8_t> le);

// Reads only the header of a .r1cs, .wtns or .zkey file (by its magic) and returns its curve.
// Throws an Error naming the file when the primes are unknown or the header is malformed.
ec::CurveId detect_curve(const std::string& path);
ec::CurveId detect_curve(std::span<const uint8_t> bytes, const std::string& name);

// Checks that the prime field element `le` (as found in `where`) is engine E's prime; `which` is
// "r" or "q". Throws "...: prime r is BN254's, this key/circuit is read as BLS12-381" or "unknown".
void expect_prime(std::span<const uint8_t> le, ec::CurveId expected, bool is_q,
                  const std::string& where);

}  // namespace splitprove::io

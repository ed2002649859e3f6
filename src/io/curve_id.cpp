#include "io/curve_id.hpp"

#include <cstring>

#include "io/binfile.hpp"

namespace splitprove::io {
namespace {

template <size_t N>
bool equals(std::span<const uint8_t> le, const ff::Limbs<N>& v) {
  if (le.size() != 8 * N) return false;
  return std::memcmp(le.data(), v.data(), 8 * N) == 0;
}

}  // namespace

std::optional<ec::CurveId> curve_from_r(std::span<const uint8_t> le) {
  if (equals(le, ec::kBls12_381R)) return ec::CurveId::kBls12_381;
  if (equals(le, ec::kBn254R)) return ec::CurveId::kBn254;
  return std::nullopt;
}

std::optional<ec::CurveId> curve_from_q(std::span<const uint8_t> le) {
  if (equals(le, ec::kBls12_381Q)) return ec::CurveId::kBls12_381;
  if (equals(le, ec::kBn254Q)) return ec::CurveId::kBn254;
  return std::nullopt;
}

std::string le_hex(std::span<const uint8_t> le) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s = "0x";
  bool lead = true;
  for (size_t i = le.size(); i-- > 0;) {
    if (lead && le[i] == 0 && i) continue;
    if (lead && le[i] < 16) {
      s.push_back(kDigits[le[i]]);
    } else {
      s.push_back(kDigits[le[i] >> 4]);
      s.push_back(kDigits[le[i] & 15]);
    }
    lead = false;
  }
  if (s.size() > 2 + 24) s = s.substr(0, 2 + 12) + "..." + s.substr(s.size() - 8);
  return s;
}

void expect_prime(std::span<const uint8_t> le, ec::CurveId expected, bool is_q,
                  const std::string& where) {
  const auto found = is_q ? curve_from_q(le) : curve_from_r(le);
  const std::string which = is_q ? "base field prime q" : "scalar field prime r";
  if (!found)
    throw Error(where + "unknown " + which + " " + le_hex(le) + " (" + std::to_string(le.size()) +
                " bytes); expected " + std::string(ec::curve_name(expected)) + "'s");
  if (*found != expected)
    throw Error(where + which + " is " + std::string(ec::curve_name(*found)) + "'s, expected " +
                std::string(ec::curve_name(expected)) + "'s");
}

ec::CurveId detect_curve(std::span<const uint8_t> bytes, const std::string& name) {
  if (bytes.size() < 4) throw Error(name + ": too short for a circom/snarkjs file");
  const std::string magic(reinterpret_cast<const char*>(bytes.data()), 4);
  auto prime_at = [&](uint32_t section, uint32_t version, const char* what, bool is_q) {
    BinFile f(bytes, name, magic, version);
    Cursor c(f.section(section, what), f.where(section, what));
    const uint32_t n8 = c.u32("n8");
    if (n8 == 0 || n8 > 64 || n8 % 8) c.fail("invalid field size n8 = " + std::to_string(n8));
    auto p = c.take(n8, "prime");
    auto id = is_q ? curve_from_q(p) : curve_from_r(p);
    if (!id)
      c.fail(std::string("unknown ") + (is_q ? "base field prime q " : "scalar field prime r ") +
             le_hex(p));
    return *id;
  };
  if (magic == "r1cs") return prime_at(1, 1, "header", false);
  if (magic == "wtns") return prime_at(1, 2, "header", false);
  if (magic == "zkey") return prime_at(2, 1, "Groth16 header", true);
  throw Error(name + ": not a .r1cs, .wtns or .zkey file (unknown magic)");
}

ec::CurveId detect_curve(const std::string& path) {
  MappedFile f(path);
  return detect_curve(f.bytes(), path);
}

}  // namespace splitprove::io

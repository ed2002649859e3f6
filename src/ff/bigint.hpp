#pragma once
// Fixed-width unsigned integers as arrays of 64-bit limbs, little-endian limb order.
// Everything here is constexpr so that field constants (R mod p, R^2 mod p, exponents) are
// derived from the modulus at compile time instead of being written out by hand.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace splitprove::ff {

using u128 = unsigned __int128;

template <size_t N>
using Limbs = std::array<uint64_t, N>;

// r = a + b, returns the carry out.
template <size_t N>
constexpr uint64_t add_limbs(Limbs<N>& r, const Limbs<N>& a, const Limbs<N>& b) {
  uint64_t c = 0;
  for (size_t i = 0; i < N; ++i) {
    u128 t = u128(a[i]) + b[i] + c;
    r[i] = uint64_t(t);
    c = uint64_t(t >> 64);
  }
  return c;
}

// r = a - b, returns the borrow out (1 when a < b).
template <size_t N>
constexpr uint64_t sub_limbs(Limbs<N>& r, const Limbs<N>& a, const Limbs<N>& b) {
  uint64_t borrow = 0;
  for (size_t i = 0; i < N; ++i) {
    u128 t = u128(a[i]) - b[i] - borrow;
    r[i] = uint64_t(t);
    borrow = uint64_t(t >> 64) & 1;
  }
  return borrow;
}

// -1, 0, 1 as a <, ==, > b.
template <size_t N>
constexpr int cmp_limbs(const Limbs<N>& a, const Limbs<N>& b) {
  for (size_t i = N; i-- > 0;) {
    if (a[i] < b[i]) return -1;
    if (a[i] > b[i]) return 1;
  }
  return 0;
}

template <size_t N>
constexpr bool is_zero_limbs(const Limbs<N>& a) {
  uint64_t acc = 0;
  for (auto x : a) acc |= x;
  return acc == 0;
}

template <size_t N>
constexpr bool bit(const Limbs<N>& a, size_t i) {
  return i < 64 * N && ((a[i / 64] >> (i % 64)) & 1);
}

template <size_t N>
constexpr size_t num_bits(const Limbs<N>& a) {
  for (size_t i = N; i-- > 0;)
    if (a[i]) return 64 * i + 64 - size_t(__builtin_clzll(a[i]));
  return 0;
}

template <size_t N>
constexpr Limbs<N> shr(const Limbs<N>& a, unsigned k) {
  Limbs<N> r{};
  const unsigned w = k / 64, b = k % 64;
  for (size_t i = 0; i + w < N; ++i) {
    r[i] = a[i + w] >> b;
    if (b && i + w + 1 < N) r[i] |= a[i + w + 1] << (64 - b);
  }
  return r;
}

// a / d for a small divisor; `rem` receives a mod d.
template <size_t N>
constexpr Limbs<N> div_small(const Limbs<N>& a, uint64_t d, uint64_t* rem = nullptr) {
  Limbs<N> q{};
  u128 r = 0;
  for (size_t i = N; i-- > 0;) {
    u128 cur = (r << 64) | a[i];
    q[i] = uint64_t(cur / d);
    r = cur % d;
  }
  if (rem) *rem = uint64_t(r);
  return q;
}

template <size_t N>
constexpr Limbs<N> from_u64(uint64_t x) {
  Limbs<N> r{};
  r[0] = x;
  return r;
}

// Parses a hexadecimal literal ("0x" prefix optional). Throws (a compile error in constexpr
// context) on a bad digit or a value that does not fit.
template <size_t N>
constexpr Limbs<N> from_hex(std::string_view s) {
  if (s.size() >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
  Limbs<N> r{};
  size_t nibble = 0;
  for (size_t i = s.size(); i-- > 0;) {
    char c = s[i];
    uint64_t v = 0;
    if (c >= '0' && c <= '9') v = uint64_t(c - '0');
    else if (c >= 'a' && c <= 'f') v = uint64_t(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') v = uint64_t(c - 'A' + 10);
    else if (c == '_' || c == '\'') continue;
    else throw "from_hex: bad digit";
    if (nibble >= 16 * N) {
      if (v) throw "from_hex: value too large";
      continue;
    }
    r[nibble / 16] |= v << (4 * (nibble % 16));
    ++nibble;
  }
  return r;
}

template <size_t N>
std::string to_hex(const Limbs<N>& a) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  for (size_t i = 64 * N / 4; i-- > 0;) {
    unsigned v = unsigned(a[i / 16] >> (4 * (i % 16))) & 15;
    if (s.empty() && v == 0) continue;
    s.push_back(kDigits[v]);
  }
  return s.empty() ? "0" : s;
}

// Decimal text <-> limbs (JSON formats write field elements as decimal strings).
// Returns false on an empty string, a non-digit, or overflow of N limbs.
template <size_t N>
bool from_decimal(std::string_view s, Limbs<N>& out) {
  if (s.empty()) return false;
  Limbs<N> r{};
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    uint64_t carry = uint64_t(c - '0');
    for (size_t i = 0; i < N; ++i) {
      u128 t = u128(r[i]) * 10 + carry;
      r[i] = uint64_t(t);
      carry = uint64_t(t >> 64);
    }
    if (carry) return false;
  }
  out = r;
  return true;
}

template <size_t N>
std::string to_decimal(Limbs<N> a) {
  std::string s;
  while (!is_zero_limbs(a)) {
    uint64_t rem = 0;
    a = div_small(a, 10, &rem);
    s.push_back(char('0' + rem));
  }
  if (s.empty()) return "0";
  return std::string(s.rbegin(), s.rend());
}

}  // namespace splitprove::ff

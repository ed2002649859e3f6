#pragma once
// The zcash / bellman / blst point encoding (also the IETF pairing-friendly-curves draft):
// big-endian coordinates, Fp2 written c1 then c0, three flag bits in the top of the first byte:
//   0x80 compression (set in the compressed form, clear in the uncompressed form)
//   0x40 infinity    (then every other bit must be zero)
//   0x20 sign        (compressed only: y is the lexicographically largest of +-y)
// Decoding validates, in order: length, flags, field range of each coordinate, the curve
// equation (or the existence of y for compressed input) and subgroup membership, and says which
// check failed.
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ff/tower.hpp"

namespace splitprove::ec {

enum class DecodeError {
  kNone = 0,
  kLength,        // wrong number of bytes for the form
  kFlags,         // compression bit does not match the form, or sign bit set on uncompressed
  kInfinity,      // infinity flag with non-zero bits after it (or sign bit set)
  kFieldRange,    // a coordinate is >= p
  kNotOnCurve,    // (x, y) off the curve, or no y exists for a compressed x
  kNotInSubgroup  // on the curve but not in the prime-order subgroup
};

inline const char* describe(DecodeError e) {
  switch (e) {
    case DecodeError::kNone: return "ok";
    case DecodeError::kLength: return "wrong length";
    case DecodeError::kFlags: return "invalid flag bits";
    case DecodeError::kInfinity: return "infinity flag set but other bits non-zero";
    case DecodeError::kFieldRange: return "coordinate not below the field modulus";
    case DecodeError::kNotOnCurve: return "point not on the curve";
    case DecodeError::kNotInSubgroup: return "point not in the prime-order subgroup";
  }
  return "unknown";
}

// Big-endian byte codecs for the coordinate fields.
template <class P>
inline constexpr size_t be_size(const ff::Field<P>*) { return ff::Field<P>::BYTES; }
template <class T>
inline constexpr size_t be_size(const ff::Fp2<T>*) { return 2 * ff::Fp2<T>::Fp::BYTES; }

template <class P>
void write_be(const ff::Field<P>& x, uint8_t* out) { x.to_bytes_be(out); }
template <class T>
void write_be(const ff::Fp2<T>& x, uint8_t* out) {
  x.c1.to_bytes_be(out);
  x.c0.to_bytes_be(out + ff::Fp2<T>::Fp::BYTES);
}
template <class P>
bool read_be(const uint8_t* in, ff::Field<P>& x) {
  auto v = ff::Field<P>::from_bytes_be(in);
  if (!v) return false;
  x = *v;
  return true;
}
template <class T>
bool read_be(const uint8_t* in, ff::Fp2<T>& x) {
  using Fp = typename ff::Fp2<T>::Fp;
  return read_be(in, x.c1) && read_be(in + Fp::BYTES, x.c0);
}
template <class P>
bool lex_largest(const ff::Field<P>& y) {
  return ff::cmp_limbs(y.to_canonical(), ff::shr(ff::Field<P>::MOD, 1)) > 0;
}
template <class T>
bool lex_largest(const ff::Fp2<T>& y) { return y.lexicographically_largest(); }

// Curve: an ec::Curve<...>; InSubgroup: a callable bool(const Jacobian&).
template <class Curve>
struct ZcashCodec {
  using F = typename Curve::F;
  using Affine = typename Curve::Affine;
  static constexpr size_t kCoord = be_size(static_cast<const F*>(nullptr));
  static constexpr size_t kCompressed = kCoord;
  static constexpr size_t kUncompressed = 2 * kCoord;

  static std::vector<uint8_t> encode(const Affine& p, bool compressed) {
    std::vector<uint8_t> out(compressed ? kCompressed : kUncompressed, 0);
    if (p.is_identity()) {
      out[0] = compressed ? 0xc0 : 0x40;
      return out;
    }
    write_be(p.x, out.data());
    if (compressed) {
      out[0] |= 0x80;
      if (lex_largest(p.y)) out[0] |= 0x20;
    } else {
      write_be(p.y, out.data() + kCoord);
    }
    return out;
  }

  template <class InSubgroup>
  static DecodeError decode(std::span<const uint8_t> in, Affine& out, InSubgroup in_subgroup,
                            bool check_subgroup = true) {
    if (in.size() != kCompressed && in.size() != kUncompressed) return DecodeError::kLength;
    const bool compressed = in.size() == kCompressed;
    const uint8_t flags = in[0] & 0xe0;
    const bool c_bit = flags & 0x80, inf_bit = flags & 0x40, sign_bit = flags & 0x20;
    if (c_bit != compressed) return DecodeError::kFlags;
    if (!compressed && sign_bit && !inf_bit) return DecodeError::kFlags;
    if (inf_bit) {
      if (sign_bit || (in[0] & 0x1f)) return DecodeError::kInfinity;
      for (size_t i = 1; i < in.size(); ++i)
        if (in[i]) return DecodeError::kInfinity;
      out = Affine::identity();
      return DecodeError::kNone;
    }
    std::vector<uint8_t> buf(in.begin(), in.end());
    buf[0] &= 0x1f;
    Affine p;
    if (!read_be(buf.data(), p.x)) return DecodeError::kFieldRange;
    if (compressed) {
      auto y = (p.x.square() * p.x + Curve::b()).sqrt();
      if (!y) return DecodeError::kNotOnCurve;
      p.y = (lex_largest(*y) == sign_bit) ? *y : -*y;
    } else {
      if (!read_be(buf.data() + kCoord, p.y)) return DecodeError::kFieldRange;
      // (0, 0) without the infinity flag is no point (Affine reads it as the identity).
      if (p.is_identity() || !p.on_curve()) return DecodeError::kNotOnCurve;
    }
    if (check_subgroup && !in_subgroup(p.to_jacobian())) return DecodeError::kNotInSubgroup;
    out = p;
    return DecodeError::kNone;
  }
};

// The Ethereum precompile layout (EIP-196/197, BN254's ecAdd/ecMul/ecPairing and on-chain Groth16
// verifiers): uncompressed, big-endian coordinates of BYTES each, Fp2 written c1 then c0 (so G2 is
// x.c1 || x.c0 || y.c1 || y.c0), no flag bits, the identity as all zero bytes ((0, 0) is not on
// y^2 = x^3 + b since b != 0). Decoding checks length, field range, the curve equation and
// subgroup membership, in that order.
template <class Curve>
struct EvmCodec {
  using F = typename Curve::F;
  using Affine = typename Curve::Affine;
  static constexpr size_t kCoord = be_size(static_cast<const F*>(nullptr));
  static constexpr size_t kSize = 2 * kCoord;

  static std::vector<uint8_t> encode(const Affine& p) {
    std::vector<uint8_t> out(kSize, 0);
    if (p.is_identity()) return out;
    write_be(p.x, out.data());
    write_be(p.y, out.data() + kCoord);
    return out;
  }

  template <class InSubgroup>
  static DecodeError decode(std::span<const uint8_t> in, Affine& out, InSubgroup in_subgroup,
                            bool check_subgroup = true) {
    if (in.size() != kSize) return DecodeError::kLength;
    bool all_zero = true;
    for (uint8_t b : in) all_zero = all_zero && b == 0;
    if (all_zero) {
      out = Affine::identity();
      return DecodeError::kNone;
    }
    Affine p;
    if (!read_be(in.data(), p.x) || !read_be(in.data() + kCoord, p.y))
      return DecodeError::kFieldRange;
    if (!p.on_curve()) return DecodeError::kNotOnCurve;
    if (check_subgroup && !in_subgroup(p.to_jacobian())) return DecodeError::kNotInSubgroup;
    out = p;
    return DecodeError::kNone;
  }
};

}  // namespace splitprove::ec

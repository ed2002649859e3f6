#pragma once
// Short Weierstrass curves y^2 = x^3 + b (a = 0) over a field F (Fp for G1, Fp2 for G2), written
// once over a parameter struct:
//
//   struct P {
//     using F = ...;                   // coordinate field
//     using Fr = ...;                  // scalar field (prime order r of the subgroup)
//     static F b();                    // curve coefficient
//     static F gen_x(), gen_y();       // subgroup generator
//     struct Glv;                      // optional: an endomorphism for GLV (see GlvSplit below)
//   };
//
// Three forms: Affine (x, y, inf), Jacobian (x = X/Z^2, y = Y/Z^3; Z = 0 is infinity) and XYZZ
// (x = X/ZZ, y = Y/ZZZ with ZZ^3 = ZZZ^2; ZZ = 0 is infinity; cheapest for bucket accumulation).
// Formulas are the explicit-formulas database ones named at each function (a = 0 specialisations).
// Addition handles the doubling and infinity cases by branching: points are public data.
#include <cstdint>
#include <span>
#include <vector>

#include "ff/bigint.hpp"

namespace splitprove::ec {

using ff::Limbs;

// GLV (Gallant, Lambert, Vanstone 2001). A curve with an efficient endomorphism E that acts on
// the subgroup as multiplication by lambda can compute k·P as k1·P + k2·E(P) with k1, k2 about
// half as long as k. A parameter struct that offers it defines
//
//   struct Glv {
//     static constexpr unsigned kBits;                  // |k1|, |k2| < 2^kBits for every k < r
//     static void endo(F& x, F& y);                     // (x, y) <- E(x, y), E(P) = lambda·P
//     static GlvSplit<Fr::N> split(const Limbs<Fr::N>& k);  // k = k1 + k2·lambda (mod r)
//   };
//
// The MSM (src/msm) uses it when present; tests check E(P) = lambda·P and the split's identity.
template <size_t N>
struct GlvSplit {
  Limbs<N> k1{}, k2{};            // magnitudes
  bool neg1 = false, neg2 = false;  // k = (-1)^neg1·k1 + (-1)^neg2·k2·lambda (mod r)
};

// a = a / d, returns a mod d (d != 0). divq where available: the high word is always the previous
// remainder, below d, so the quotient fits one word and the instruction cannot fault.
template <size_t N>
inline uint64_t div_limbs_u64(Limbs<N>& a, uint64_t d) {
  uint64_t r = 0;
  for (size_t i = N; i-- > 0;) {
#if defined(__x86_64__)
    uint64_t q, rem;
    asm("divq %[d]" : "=a"(q), "=d"(rem) : "a"(a[i]), "d"(r), [d] "rm"(d) : "cc");
    a[i] = q;
    r = rem;
#else
    const ff::u128 x = (ff::u128(r) << 64) | a[i];
    a[i] = uint64_t(x / d);
    r = uint64_t(x % d);
#endif
  }
  return r;
}

// The split for BLS12 curves, lambda = x^2 (an endomorphism of eigenvalue x^2 exists on G1 and
// G2), r = x^4 - x^2 + 1 < lambda^2: k = k2·x^2 + k1 with 0 <= k1 < x^2, k2 = floor(k / x^2)
// < x^2 + 1, both below 2^128 for a 64-bit |x|. Two divisions by |x|:
//   k = q1·|x| + r1,  q1 = q2·|x| + r2   =>   k = q2·x^2 + (r2·|x| + r1).
template <size_t N>
GlvSplit<N> glv_split_by_x_squared(const Limbs<N>& k, uint64_t abs_x) {
  GlvSplit<N> s;
  Limbs<N> q = k;
  const uint64_t r1 = div_limbs_u64(q, abs_x);
  const uint64_t r2 = div_limbs_u64(q, abs_x);
  const ff::u128 k1 = ff::u128(r2) * abs_x + r1;  // < x^2 < 2^128
  s.k1[0] = uint64_t(k1);
  s.k1[1] = uint64_t(k1 >> 64);
  s.k2 = q;
  return s;
}

template <class P>
struct Curve {
  using Params = P;
  using F = typename P::F;
  using Fr = typename P::Fr;
  static F b() { return P::b(); }

  struct Jacobian;

  // The identity is (0, 0), which is not on the curve (b != 0): no flag, so the type is exactly
  // two coordinates (x then y, Montgomery limbs), the layout of the snarkjs point encoding, whose
  // identity is all zero bytes too. A proving key's points are used where a .zkey is mapped
  // (io/zkey.hpp). Zero-initialized, an Affine is the identity.
  struct Affine {
    F x{}, y{};

    static Affine identity() { return Affine{}; }
    static Affine generator() { return Affine{P::gen_x(), P::gen_y()}; }
    bool is_identity() const { return x.is_zero() && y.is_zero(); }
    // y^2 = x^3 + b (the identity counts as on the curve).
    bool on_curve() const { return is_identity() || y.square() == x.square() * x + P::b(); }
    // -(0, 0) = (0, 0): the identity needs no case.
    Affine operator-() const { return Affine{x, -y}; }
    friend bool operator==(const Affine& a, const Affine& b) { return a.x == b.x && a.y == b.y; }
    Jacobian to_jacobian() const {
      return is_identity() ? Jacobian::identity() : Jacobian{x, y, F::one()};
    }
  };
  static_assert(sizeof(Affine) == 2 * sizeof(F), "Affine must be two coordinates, no padding");

  struct Jacobian {
    F X{}, Y{}, Z{};

    static Jacobian identity() { return Jacobian{F::one(), F::one(), F::zero()}; }
    static Jacobian generator() { return Affine::generator().to_jacobian(); }
    bool is_identity() const { return Z.is_zero(); }
    Jacobian operator-() const { return {X, -Y, Z}; }

    friend bool operator==(const Jacobian& a, const Jacobian& b) {
      if (a.is_identity() || b.is_identity()) return a.is_identity() == b.is_identity();
      F z1z1 = a.Z.square(), z2z2 = b.Z.square();
      if (!(a.X * z2z2 == b.X * z1z1)) return false;
      return a.Y * z2z2 * b.Z == b.Y * z1z1 * a.Z;
    }

    bool on_curve() const {
      if (is_identity()) return true;
      F z2 = Z.square();
      F z6 = z2.square() * z2;
      return Y.square() == X.square() * X + P::b() * z6;
    }

    // dbl-2009-l: 2M + 5S
    Jacobian dbl() const {
      if (is_identity()) return *this;
      F A = X.square(), B = Y.square(), C = B.square();
      F D = ((X + B).square() - A - C).dbl();
      F E = A.dbl() + A;
      F Fv = E.square();
      F X3 = Fv - D.dbl();
      F C8 = C.dbl().dbl().dbl();
      return {X3, E * (D - X3) - C8, (Y * Z).dbl()};
    }

    // add-2007-bl: 11M + 5S
    friend Jacobian operator+(const Jacobian& p, const Jacobian& q) {
      if (p.is_identity()) return q;
      if (q.is_identity()) return p;
      F z1z1 = p.Z.square(), z2z2 = q.Z.square();
      F u1 = p.X * z2z2, u2 = q.X * z1z1;
      F s1 = p.Y * q.Z * z2z2, s2 = q.Y * p.Z * z1z1;
      F h = u2 - u1, r = (s2 - s1).dbl();
      if (h.is_zero()) return r.is_zero() ? p.dbl() : identity();
      F i = h.dbl().square(), j = h * i, v = u1 * i;
      F X3 = r.square() - j - v.dbl();
      F Y3 = r * (v - X3) - (s1 * j).dbl();
      F Z3 = ((p.Z + q.Z).square() - z1z1 - z2z2) * h;
      return {X3, Y3, Z3};
    }

    // madd-2007-bl: 7M + 4S
    friend Jacobian operator+(const Jacobian& p, const Affine& q) {
      if (q.is_identity()) return p;
      if (p.is_identity()) return q.to_jacobian();
      F z1z1 = p.Z.square();
      F u2 = q.x * z1z1, s2 = q.y * p.Z * z1z1;
      F h = u2 - p.X, r = (s2 - p.Y).dbl();
      if (h.is_zero()) return r.is_zero() ? p.dbl() : identity();
      F hh = h.square(), i = hh.dbl().dbl(), j = h * i, v = p.X * i;
      F X3 = r.square() - j - v.dbl();
      F Y3 = r * (v - X3) - (p.Y * j).dbl();
      F Z3 = (p.Z + h).square() - z1z1 - hh;
      return {X3, Y3, Z3};
    }
    friend Jacobian operator-(const Jacobian& p, const Jacobian& q) { return p + (-q); }
    Jacobian& operator+=(const Jacobian& q) { return *this = *this + q; }
    Jacobian& operator+=(const Affine& q) { return *this = *this + q; }

    Affine to_affine() const {
      if (is_identity()) return Affine::identity();
      F zi = Z.inverse(), zi2 = zi.square();
      return Affine{X * zi2, Y * zi2 * zi};
    }

    // k·P for a scalar given as little-endian limbs (variable time; for public scalars and tests).
    // Width-5 wNAF over a table of odd multiples P, 3P, ..., 15P.
    template <size_t M>
    Jacobian mul(const Limbs<M>& k) const {
      constexpr int W = 5;
      std::vector<int8_t> naf;
      naf.reserve(64 * M + 1);
      Limbs<M + 1> e{};
      for (size_t i = 0; i < M; ++i) e[i] = k[i];
      while (!ff::is_zero_limbs(e)) {
        int8_t d = 0;
        if (e[0] & 1) {
          int v = int(e[0] & ((1u << W) - 1));
          if (v >= (1 << (W - 1))) v -= (1 << W);
          d = int8_t(v);
          // e -= d
          Limbs<M + 1> dv{};
          if (v > 0) {
            dv[0] = uint64_t(v);
            ff::sub_limbs(e, e, dv);
          } else {
            dv[0] = uint64_t(-v);
            ff::add_limbs(e, e, dv);
          }
        }
        naf.push_back(d);
        e = ff::shr(e, 1);
      }
      Jacobian table[1 << (W - 2)];
      table[0] = *this;
      Jacobian p2 = dbl();
      for (int i = 1; i < (1 << (W - 2)); ++i) table[i] = table[i - 1] + p2;
      Jacobian r = identity();
      for (size_t i = naf.size(); i-- > 0;) {
        r = r.dbl();
        int d = naf[i];
        if (d > 0) r += table[(d - 1) / 2];
        if (d < 0) r += -table[(-d - 1) / 2];
      }
      return r;
    }
    Jacobian mul(const Fr& k) const { return mul(k.to_canonical()); }
    Jacobian mul_u64(uint64_t k) const { return mul(Limbs<1>{k}); }
  };

  // Homogeneous projective (x = X/Z, y = Y/Z; identity (0 : 1 : 0)) with the complete formulas
  // of Renes, Costello and Batina, "Complete addition formulas for prime order elliptic curves"
  // (2016), Algorithms 7 (addition) and 9 (doubling) for a = 0: no exceptional cases, so no
  // branch on the points. Used for constant-time multiplication by secret scalars.
  struct Projective {
    F X{}, Y{}, Z{};

    static Projective identity() { return {F::zero(), F::one(), F::zero()}; }
    static Projective from_affine(const Affine& a) {
      return a.is_identity() ? identity() : Projective{a.x, a.y, F::one()};
    }
    static F b3() {
      F bb = P::b();
      return bb.dbl() + bb;
    }
    static Projective select(const Projective& a, const Projective& b, uint64_t mask) {
      return {F::select(a.X, b.X, mask), F::select(a.Y, b.Y, mask), F::select(a.Z, b.Z, mask)};
    }

    friend Projective operator+(const Projective& p, const Projective& q) {
      const F B3 = b3();
      F t0 = p.X * q.X, t1 = p.Y * q.Y, t2 = p.Z * q.Z;
      F t3 = (p.X + p.Y) * (q.X + q.Y);
      F t4 = t0 + t1;
      t3 = t3 - t4;
      t4 = (p.Y + p.Z) * (q.Y + q.Z);
      F X3 = t1 + t2;
      t4 = t4 - X3;
      X3 = (p.X + p.Z) * (q.X + q.Z);
      F Y3 = t0 + t2;
      Y3 = X3 - Y3;
      X3 = t0 + t0;
      t0 = X3 + t0;
      t2 = B3 * t2;
      F Z3 = t1 + t2;
      t1 = t1 - t2;
      Y3 = B3 * Y3;
      X3 = t4 * Y3;
      t2 = t3 * t1;
      X3 = t2 - X3;
      Y3 = Y3 * t0;
      t1 = t1 * Z3;
      Y3 = t1 + Y3;
      t0 = t0 * t3;
      Z3 = Z3 * t4;
      Z3 = Z3 + t0;
      return {X3, Y3, Z3};
    }
    Projective dbl() const {
      const F B3 = b3();
      F t0 = Y.square();
      F Z3 = t0.dbl().dbl().dbl();
      F t1 = Y * Z;
      F t2 = B3 * Z.square();
      F X3 = t2 * Z3;
      F Y3 = t0 + t2;
      Z3 = t1 * Z3;
      t1 = t2.dbl();
      t2 = t1 + t2;
      t0 = t0 - t2;
      Y3 = t0 * Y3;
      Y3 = X3 + Y3;
      t1 = X * Y;
      X3 = t0 * t1;
      X3 = X3.dbl();
      return {X3, Y3, Z3};
    }
    // x = X/Z = X·Z/Z^2, y = Y/Z = Y·Z^2/Z^3: Jacobian (X·Z, Y·Z^2, Z).
    Jacobian to_jacobian() const {
      if (Z.is_zero()) return Jacobian::identity();
      return {X * Z, Y * Z.square(), Z};
    }
  };

  // k·P for a secret scalar: fixed 4-bit windows over all 256 bits, a table lookup that reads
  // every entry, and complete formulas — the sequence of operations does not depend on k or P.
  static Jacobian mul_ct(const Affine& p, const Fr& k) {
    Projective table[16];
    table[0] = Projective::identity();
    table[1] = Projective::from_affine(p);
    for (int i = 2; i < 16; ++i) table[i] = table[i - 1] + table[1];
    const auto e = k.to_canonical();
    Projective r = Projective::identity();
    for (int w = int(64 * Fr::N / 4) - 1; w >= 0; --w) {
      for (int d = 0; d < 4; ++d) r = r.dbl();
      const uint64_t digit = (e[size_t(w) / 16] >> (4 * (size_t(w) % 16))) & 15;
      Projective t = table[0];
      for (uint64_t i = 1; i < 16; ++i) t = Projective::select(t, table[i], 0 - uint64_t(i == digit));
      r = r + t;
    }
    return r.to_jacobian();
  }

  // x = X/ZZ, y = Y/ZZZ. Used for MSM buckets (mixed addition 8M + 2S).
  struct Xyzz {
    F X{}, Y{}, ZZ{}, ZZZ{};

    static Xyzz identity() { return Xyzz{F::one(), F::one(), F::zero(), F::zero()}; }
    bool is_identity() const { return ZZ.is_zero(); }

    static Xyzz from_affine(const Affine& a) {
      return a.is_identity() ? identity() : Xyzz{a.x, a.y, F::one(), F::one()};
    }

    // dbl-2008-s-1: 6M + 3S
    Xyzz dbl() const {
      if (is_identity()) return *this;
      F U = Y.dbl(), V = U.square(), W = U * V, S = X * V;
      F x2 = X.square(), M = x2.dbl() + x2;
      F X3 = M.square() - S.dbl();
      return {X3, M * (S - X3) - W * Y, V * ZZ, W * ZZZ};
    }

    // madd-2008-s: 8M + 2S
    Xyzz& operator+=(const Affine& q) {
      if (q.is_identity()) return *this;
      if (is_identity()) return *this = from_affine(q);
      F U2 = q.x * ZZ, S2 = q.y * ZZZ;
      F Pv = U2 - X, R = S2 - Y;
      if (Pv.is_zero()) {
        if (R.is_zero()) return *this = from_affine(q).dbl();
        return *this = identity();
      }
      F PP = Pv.square(), PPP = Pv * PP, Q = X * PP;
      F X3 = R.square() - PPP - Q.dbl();
      Y = R * (Q - X3) - Y * PPP;
      X = X3;
      ZZ = ZZ * PP;
      ZZZ = ZZZ * PPP;
      return *this;
    }
    Xyzz& sub_affine(const Affine& q) { return *this += -q; }

    // add-2008-s: 12M + 2S
    Xyzz& operator+=(const Xyzz& q) {
      if (q.is_identity()) return *this;
      if (is_identity()) return *this = q;
      F U1 = X * q.ZZ, U2 = q.X * ZZ, S1 = Y * q.ZZZ, S2 = q.Y * ZZZ;
      F Pv = U2 - U1, R = S2 - S1;
      if (Pv.is_zero()) {
        if (R.is_zero()) return *this = dbl();
        return *this = identity();
      }
      F PP = Pv.square(), PPP = Pv * PP, Q = U1 * PP;
      F X3 = R.square() - PPP - Q.dbl();
      Y = R * (Q - X3) - S1 * PPP;
      X = X3;
      ZZ = ZZ * q.ZZ * PP;
      ZZZ = ZZZ * q.ZZZ * PPP;
      return *this;
    }

    Jacobian to_jacobian() const {
      if (is_identity()) return Jacobian::identity();
      // Z_j = ZZ·ZZZ: X_j = x·Z_j^2 = X·ZZ·ZZZ^2, Y_j = y·Z_j^3 = Y·ZZ^3·ZZZ^2.
      F zzz2 = ZZZ.square();
      return {X * ZZ * zzz2, Y * ZZ.square() * ZZ * zzz2, ZZ * ZZZ};
    }
    Affine to_affine() const {
      if (is_identity()) return Affine::identity();
      F zzzi = ZZZ.inverse();
      F zzi = (ZZ * zzzi).square();  // ZZ = Z^2, ZZZ = Z^3: (ZZ/ZZZ)^2 = 1/Z^2 = 1/ZZ
      return Affine{X * zzi, Y * zzzi};
    }
  };

  // Converts many points with one inversion (Montgomery's trick).
  static void batch_to_affine(std::span<const Jacobian> in, std::span<Affine> out) {
    const size_t n = in.size();
    std::vector<F> acc(n);
    F run = F::one();
    for (size_t i = 0; i < n; ++i) {
      acc[i] = run;
      if (!in[i].is_identity()) run = run * in[i].Z;
    }
    F inv = run.inverse();
    for (size_t i = n; i-- > 0;) {
      if (in[i].is_identity()) {
        out[i] = Affine::identity();
        continue;
      }
      F zi = inv * acc[i];
      inv = inv * in[i].Z;
      F zi2 = zi.square();
      out[i] = Affine{in[i].X * zi2, in[i].Y * zi2 * zi};
    }
  }

  // r·P == 0, the definition of subgroup membership (slow; the reference for the fast checks).
  static bool in_subgroup_by_order(const Jacobian& p) { return p.mul(Fr::MOD).is_identity(); }
};

}  // namespace splitprove::ec

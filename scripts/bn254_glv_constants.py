#!/usr/bin/env python3
"""Derives the BN254 GLV constants used in src/ec/bn254.hpp (BnGlv) and checks them.

beta: a primitive cube root of unity in Fp; lambda: the cube root of unity mod r with
(beta·x, y) = lambda·(x, y) on the G1 generator (on G2 the same lambda belongs to beta^2, checked
by tests/test_msm_bn254.cpp). The short lattice basis of {(u, w): u + w·lambda = 0 mod r} comes
from the extended Euclidean algorithm on (r, lambda) (Gallant, Lambert, Vanstone 2001, section 4);
g1, g2 are the rounded 2^256·b2/r and 2^256·(-b1)/r of the split. Prints the values and the widest
|k1|, |k2| over random and edge scalars with the exact arithmetic of BnGlv::split.
"""
import math
import random

p = 0x30644E72E131A029B85045B68181585D97816A916871CA8D3C208C16D87CFD47
r = 0x30644E72E131A029B85045B68181585D2833E84879B9709143E1F593F0000001
x = 0x44E992B44A6909F1


def cube_root_of_unity(m):
    for g in range(2, 100):
        c = pow(g, (m - 1) // 3, m)
        if c != 1:
            return c
    raise ValueError("none found")


def add(P, Q):
    if P is None:
        return Q
    if Q is None:
        return P
    (x1, y1), (x2, y2) = P, Q
    if x1 == x2:
        if (y1 + y2) % p == 0:
            return None
        l = 3 * x1 * x1 * pow(2 * y1, -1, p) % p
    else:
        l = (y2 - y1) * pow(x2 - x1, -1, p) % p
    x3 = (l * l - x1 - x2) % p
    return (x3, (l * (x1 - x3) - y1) % p)


def mul(P, k):
    R = None
    for b in bin(k)[2:]:
        R = add(R, R)
        if b == "1":
            R = add(R, P)
    return R


def short_basis(n, lam):
    rows = [(n, 0), (lam, 1)]
    r0, t0, r1, t1 = n, 0, lam, 1
    while r1:
        q = r0 // r1
        r0, r1 = r1, r0 - q * r1
        t0, t1 = t1, t0 - q * t1
        rows.append((r1, t1))
    m = max(i for i, (ri, _) in enumerate(rows) if ri >= math.isqrt(n))
    v1 = (rows[m + 1][0], -rows[m + 1][1])
    cands = [(rows[m][0], -rows[m][1]), (rows[m + 2][0], -rows[m + 2][1])]
    v2 = min(cands, key=lambda v: v[0] ** 2 + v[1] ** 2)
    return v1, v2


G = (1, 2)
b0 = cube_root_of_unity(p)
l0 = cube_root_of_unity(r)
# Take the pair with the shorter lambda.
pairs = [(b, l) for b in (b0, b0 * b0 % p) for l in (l0, l0 * l0 % r) if mul(G, l) == (b % p, 2)]
beta, lam = min(pairs, key=lambda bl: bl[1])
(a1, b1), (a2, b2) = short_basis(r, lam)
assert (a1 + b1 * lam) % r == 0 and (a2 + b2 * lam) % r == 0 and a1 * b2 - a2 * b1 == r
assert (a1, b1, a2, b2) == (2 * x + 1, -(6 * x * x + 2 * x), 6 * x * x + 4 * x + 1, 2 * x + 1)


def rounded(num):
    q, rem = divmod(num << 256, r)
    return q + (2 * rem >= r)


g1, g2 = rounded(b2), rounded(-b1)


def split(k):
    c1, c2 = (k * g1) >> 256, (k * g2) >> 256
    k1, k2 = k - c1 * a1 - c2 * a2, -c1 * b1 - c2 * b2
    assert (k1 + k2 * lam - k) % r == 0
    return k1, k2


ks = [0, 1, r - 1, lam, lam - 1, lam + 1, lam * lam % r, r - lam] + [r >> j for j in range(1, 64)]
ks += [random.randrange(r) for _ in range(100000)]
widest = max(max(abs(v).bit_length() for v in split(k)) for k in ks)
print(f"beta   = {beta:#x}\nbeta^2 = {beta * beta % p:#x}\nlambda = {lam:#x}")
print(f"a1 = {a1:#x}\nb1 = -{-b1:#x}\na2 = {a2:#x}\nb2 = {b2:#x}\ng1 = {g1:#x}\ng2 = {g2:#x}")
print(f"widest |k1|, |k2|: {widest} bits (BnGlv::kBits = 128)")

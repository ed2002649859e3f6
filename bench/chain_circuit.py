#!/usr/bin/env python3
"""Writes the benchmark chain circuit and its witness without circom, in seconds rather than
circom's half hour at 2^20: the constraints `circom2 tests/circuits/chain.circom --r1cs --O2`
(with Chain(2^k - 3)) writes, the same wires, labels and coefficients (circom lists the terms of
some C rows in another order; A and B, all a .zkey stores, are byte for byte the same), and the
witness `snarkjs wtns calculate` computes for inputs {"x0": "3", "c": "5"}, byte for byte.

  x_{i+1} = x_i^2 + x_i + c, N = 2^k - 3 constraints; wires 0 = 1, 1 = out = x_N, 2 = c (public
  input), 3 = x0 (private input), 4.. = x_1 .. x_{N-1}; each constraint A = {x_i: -1},
  B = {x_i: 1}, C = {c: 1, x_i: 1, x_{i+1}: -1} (terms by wire), as circom writes it.

  bench/chain_circuit.py CURVE K OUT_PREFIX     (CURVE: bn128 or bls12381; writes OUT_PREFIX.r1cs/.wtns)
"""
import struct
import sys

PRIMES = {
    "bn128": 21888242871839275222246405745257275088548364400416034343698204186575808495617,
    "bls12381": 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001,
}


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in PRIMES:
        sys.exit(__doc__)
    r = PRIMES[sys.argv[1]]
    k, out = int(sys.argv[2]), sys.argv[3]
    if not 4 <= k <= 28:
        sys.exit("chain_circuit.py: K must be in 4..28")
    n = (1 << k) - 3
    wires = n + 3

    def fe(v):
        return (v % r).to_bytes(32, "little")

    def wire(i):  # x_i
        return 3 if i == 0 else 1 if i == n else 3 + i

    one, minus = fe(1), fe(-1)

    def term(w, v):
        return struct.pack("<I", w) + v

    cons = bytearray()
    for i in range(n):
        a, b = wire(i), wire(i + 1)
        cons += struct.pack("<I", 1) + term(a, minus)
        cons += struct.pack("<I", 1) + term(a, one)
        c = sorted([(2, one), (a, one), (b, minus)])
        cons += struct.pack("<I", 3) + b"".join(term(w, v) for w, v in c)
    header = struct.pack("<I", 32) + r.to_bytes(32, "little")
    header += struct.pack("<IIIIQI", wires, 1, 1, 1, wires + 2, n)
    # circom's labels: x[0] (label 4) and the component's own signals are optimised away.
    labels = b"".join(struct.pack("<Q", w if w < 4 else w + 1) for w in range(wires))
    with open(out + ".r1cs", "wb") as f:
        f.write(b"r1cs" + struct.pack("<II", 1, 3))
        for sid, body in ((2, cons), (1, header), (3, labels)):
            f.write(struct.pack("<IQ", sid, len(body)))
            f.write(body)

    values = [0] * wires
    values[0], values[2] = 1, 5
    x = 3
    for i in range(n + 1):
        values[wire(i)] = x
        x = (x * x + x + 5) % r
    h1 = struct.pack("<I", 32) + r.to_bytes(32, "little") + struct.pack("<I", wires)
    with open(out + ".wtns", "wb") as f:
        f.write(b"wtns" + struct.pack("<II", 2, 2))
        for sid, body in ((1, h1), (2, b"".join(fe(v) for v in values))):
            f.write(struct.pack("<IQ", sid, len(body)))
            f.write(body)


if __name__ == "__main__":
    main()

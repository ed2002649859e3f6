pragma circom 2.1.0;

// c = a·b with c public: the smallest Groth16 circuit (one constraint, one public output).
template Multiplier() {
    signal input a;
    signal input b;
    signal output c;
    c <== a * b;
}

component main = Multiplier();

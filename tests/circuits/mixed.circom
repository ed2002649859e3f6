pragma circom 2.1.0;

// Several public inputs and outputs, quadratic and linear constraints (compiled with --O0 so the
// linear ones survive as constraints with empty A and B, and the outputs keep coefficients != ±1).
//   out0 = x·y + 3·z + s²·z,  out1 = (x + y)·(z - 5),  out2 = 7·x + 2·y - z (linear)
template Mixed() {
    signal input x;        // public
    signal input y;        // public
    signal input z;        // private
    signal input s;        // private
    signal output out0;
    signal output out1;
    signal output out2;
    signal xy;
    signal t;
    signal u;

    xy <== x * y;
    t <== s * s;
    u <== t * z;
    out0 <== xy + 3 * z + u;
    out1 <== (x + y) * (z - 5);
    out2 <== 7 * x + 2 * y - z;
}

component main {public [x, y]} = Mixed();

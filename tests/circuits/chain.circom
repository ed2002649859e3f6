pragma circom 2.1.0;

// x_{i+1} = x_i^2 + x_i + c for N steps: N quadratic constraints, the size scales with N.
template Chain(N) {
    signal input x0;
    signal input c;
    signal output out;
    signal x[N + 1];
    x[0] <== x0;
    for (var i = 0; i < N; i++) {
        x[i + 1] <== x[i] * x[i] + x[i] + c;
    }
    out <== x[N];
}

component main {public [c]} = Chain(100);

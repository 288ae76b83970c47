pragma circom 2.0.0;

// A bit-heavy circuit: x is decomposed into n booleans, then folded with
// the public y into z. Most witness values are 0 or 1, as in Filecoin's.
template Num2Bits(n) {
    signal input in;
    signal output out[n];
    var acc = 0;
    var e = 1;
    for (var i = 0; i < n; i++) {
        out[i] <-- (in >> i) & 1;
        out[i] * (out[i] - 1) === 0;
        acc += out[i] * e;
        e = e + e;
    }
    acc === in;
}

template Fold(n) {
    signal input x;
    signal input y;
    signal output z;
    component bits = Num2Bits(n);
    bits.in <== x;
    signal acc[n];
    acc[0] <== bits.out[0] * y;
    for (var i = 1; i < n; i++) {
        acc[i] <== acc[i - 1] * y + bits.out[i];
    }
    z <== acc[n - 1];
}

component main {public [y]} = Fold(200);

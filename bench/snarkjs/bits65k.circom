pragma circom 2.0.0;

// The side-by-side benchmark circuit: 130 field elements, each split into
// 250 booleans and folded with a public y (2 x 250 + 1 constraints each),
// 65,130 constraints in all: a 2^16 domain, bit-heavy like Filecoin's.
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

template Many(k, n) {
    signal input x[k];
    signal input y;
    signal output z[k];
    component f[k];
    for (var j = 0; j < k; j++) {
        f[j] = Fold(n);
        f[j].x <== x[j];
        f[j].y <== y;
        z[j] <== f[j].z;
    }
}

component main {public [y]} = Many(130, 250);

pragma circom 2.0.0;

// out = a * b * c + a, with a public input a and a public output out.
template Mul3() {
    signal input a;
    signal input b;
    signal input c;
    signal output out;
    signal ab;
    ab <== a * b;
    out <== ab * c + a;
}

component main {public [a]} = Mul3();

// fields.mjs - oracle cases for Fp, Fr and Fp2: arithmetic, inverses, square
// roots of residues and non-residues, exponentiation, batch inversion and
// the byte codecs, each answer compared with @noble/curves' fields.
import { bls12_381 } from '@noble/curves/bls12-381.js';

import { big, exact, hex, kase, reverseHex } from './lib.mjs';

const { Fp, Fr, Fp2 } = bls12_381.fields;

// Each prime field as the driver sees it: request prefix, byte length and
// the Montgomery radix R = 2^(64 limbs), whose residues are edge values.
const PRIME_FIELDS = [
  { name: 'fp', F: Fp, bytes: 48, R: 1n << 384n },
  { name: 'fr', F: Fr, bytes: 32, R: 1n << 256n },
];

function edgeValues(f, rng) {
  const P = f.F.ORDER;
  const small = rng.below(1n << 64n);
  return [
    0n,
    1n,
    2n,
    P - 1n,
    P - 2n,
    (P - 1n) / 2n,
    (P + 1n) / 2n,
    small,
    P - 1n - small,
    (1n << BigInt(rng.int(f.bytes * 8 - 2))) % P,
    f.R % P,
    (f.R * f.R) % P,
    P - (f.R % P),
  ];
}

// Three in four uniform, the rest edge values.
export function fieldValue(f, rng) {
  if (rng.chance(0.75)) return rng.below(f.F.ORDER);
  return rng.pick(edgeValues(f, rng));
}

function legendre(F, a) {
  if (a === 0n) return 0;
  return F.pow(a, (F.ORDER - 1n) / 2n) === 1n ? 1 : -1;
}

function nonResidue(F, rng) {
  for (;;) {
    const a = rng.below(F.ORDER);
    if (legendre(F, a) === -1) return a;
  }
}

function sqrtInput(f, rng) {
  const { F } = f;
  switch (rng.int(4)) {
    case 0:
      return F.sqr(fieldValue(f, rng));
    case 1:
      return nonResidue(F, rng);
    case 2:
      return rng.pick([0n, 1n, F.ORDER - 1n, 4n]);
    default:
      return fieldValue(f, rng);
  }
}

function sqrtCheck(F, bytes, a) {
  if (legendre(F, a) === -1) return exact('none');
  return (got) => {
    if (!/^[0-9a-f]+$/.test(got) || got.length !== 2 * bytes) return 'expected a root';
    const r = big(got);
    return r < F.ORDER && F.sqr(r) === a ? null : `${got}^2 != a`;
  };
}

function exponent(F, rng) {
  switch (rng.int(6)) {
    case 0:
      return rng.pick([0n, 1n, 2n, F.ORDER - 1n, F.ORDER - 2n, (F.ORDER + 1n) / 4n]);
    default:
      return rng.below(1n << BigInt(8 * (1 + rng.int(64))));
  }
}

function expHex(e) {
  const s = e.toString(16);
  return s.length % 2 ? '0' + s : s;
}

function batchCase(f, rng) {
  const { F, name, bytes } = f;
  const n = 1 + rng.int(30);
  const xs = Array.from({ length: n }, () => (rng.chance(0.15) ? 0n : fieldValue(f, rng)));
  const want = xs.map((x) => hex(x === 0n ? 0n : F.inv(x), bytes)).join(' ');
  return kase(
    `${name}_batch_inv`,
    `${name}_batch_inv ${xs.map((x) => hex(x, bytes)).join(' ')}`,
    exact(want),
  );
}

// Bytes for the decoders: mostly canonical values, else values >= the modulus.
function codecBytes(f, rng) {
  const P = f.F.ORDER,
    top = 1n << BigInt(8 * f.bytes);
  switch (rng.int(4)) {
    case 0:
      return rng.pick([P, P + 1n, top - 1n, P + rng.below(top - P)]);
    default:
      return fieldValue(f, rng);
  }
}

function primeFieldCases(f, rng, n) {
  const { F, name, bytes } = f;
  const h = (v) => hex(v, bytes);
  const out = [];
  const binary = { add: F.add, sub: F.sub, mul: F.mul, mul_portable: F.mul };
  const unary = { neg: F.neg, sqr: F.sqr, dbl: (a) => F.add(a, a) };
  for (let i = 0; i < n; i++) {
    const a = fieldValue(f, rng),
      b = fieldValue(f, rng);
    for (const [op, fn] of Object.entries(binary))
      out.push(kase(`${name}_${op}`, `${name}_${op} ${h(a)} ${h(b)}`, exact(h(fn.call(F, a, b)))));
    for (const [op, fn] of Object.entries(unary))
      out.push(kase(`${name}_${op}`, `${name}_${op} ${h(a)}`, exact(h(fn.call(F, a)))));
    const z = rng.chance(0.05) ? 0n : a;
    out.push(kase(`${name}_inv`, `${name}_inv ${h(z)}`, exact(z === 0n ? 'none' : h(F.inv(z)))));
    const s = sqrtInput(f, rng);
    out.push(kase(`${name}_sqrt`, `${name}_sqrt ${h(s)}`, sqrtCheck(F, bytes, s)));
    const sign = s > (F.ORDER - 1n) / 2n ? 1 : 0;
    out.push(
      kase(`${name}_legendre`, `${name}_legendre ${h(s)}`, exact(`${legendre(F, s)} ${sign}`)),
    );
    const e = exponent(F, rng);
    out.push(kase(`${name}_pow`, `${name}_pow ${h(a)} ${expHex(e)}`, exact(h(F.pow(a, e)))));
    const c = codecBytes(f, rng);
    const want = c < F.ORDER ? `ok ${h(c)}` : 'err noncanonical';
    out.push(kase(`${name}_from_be`, `${name}_from_be ${h(c)}`, exact(want)));
    out.push(kase(`${name}_from_le`, `${name}_from_le ${reverseHex(h(c))}`, exact(want)));
    out.push(kase(`${name}_to_le`, `${name}_to_le ${h(a)}`, exact(reverseHex(h(a)))));
    if (i % 10 === 0) out.push(batchCase(f, rng));
  }
  return out;
}

// ---- Fp2 = Fp[u]/(u^2 + 1), written "c0 c1" ----

const FP = PRIME_FIELDS[0];
const h2 = (a) => `${hex(a.c0, 48)} ${hex(a.c1, 48)}`;

function fp2Value(rng) {
  const c0 = fieldValue(FP, rng),
    c1 = fieldValue(FP, rng);
  switch (rng.int(8)) {
    case 0:
      return Fp2.create({ c0, c1: 0n });
    case 1:
      return Fp2.create({ c0: 0n, c1 });
    default:
      return Fp2.create({ c0, c1 });
  }
}

// a is a square in Fp2 iff its norm c0^2 + c1^2 is a square in Fp.
function fp2IsSquare(a) {
  return legendre(Fp, Fp.add(Fp.sqr(a.c0), Fp.sqr(a.c1))) !== -1;
}

function fp2SqrtInput(rng) {
  switch (rng.int(5)) {
    case 0:
      return Fp2.sqr(fp2Value(rng));
    case 1:
      return Fp2.create({ c0: Fp.sqr(fieldValue(FP, rng)), c1: 0n });
    case 2:
      return Fp2.create({ c0: nonResidue(Fp, rng), c1: 0n });
    default:
      return fp2Value(rng);
  }
}

function fp2SqrtCheck(a) {
  let nobleHasRoot = true;
  try {
    Fp2.sqrt(a);
  } catch {
    nobleHasRoot = false;
  }
  if (nobleHasRoot !== fp2IsSquare(a)) throw new Error(`noble and the norm disagree on ${h2(a)}`);
  if (!nobleHasRoot) return exact('none');
  return (got) => {
    const m = /^([0-9a-f]{96}) ([0-9a-f]{96})$/.exec(got);
    if (!m) return 'expected a root';
    const r = { c0: big(m[1]), c1: big(m[2]) };
    if (r.c0 >= Fp.ORDER || r.c1 >= Fp.ORDER) return 'root not canonical';
    return Fp2.eql(Fp2.sqr(Fp2.create(r)), a) ? null : 'root^2 != a';
  };
}

function fp2Sign(a) {
  const half = (Fp.ORDER - 1n) / 2n;
  return a.c1 > half || (a.c1 === 0n && a.c0 > half) ? 1 : 0;
}

function fp2Cases(rng, n) {
  const out = [];
  const U1 = Fp2.create({ c0: 1n, c1: 1n });
  const binary = { add: Fp2.add, sub: Fp2.sub, mul: Fp2.mul };
  const unary = {
    neg: Fp2.neg,
    sqr: Fp2.sqr,
    dbl: (a) => Fp2.add(a, a),
    conj: (a) => Fp2.create({ c0: a.c0, c1: Fp.neg(a.c1) }),
    mul_by_nonresidue: (a) => Fp2.mul(a, U1),
  };
  for (let i = 0; i < n; i++) {
    const a = fp2Value(rng),
      b = fp2Value(rng);
    for (const [op, fn] of Object.entries(binary))
      out.push(kase(`fp2_${op}`, `fp2_${op} ${h2(a)} ${h2(b)}`, exact(h2(fn.call(Fp2, a, b)))));
    for (const [op, fn] of Object.entries(unary))
      out.push(kase(`fp2_${op}`, `fp2_${op} ${h2(a)}`, exact(h2(fn.call(Fp2, a)))));
    const z = rng.chance(0.05) ? Fp2.ZERO : a;
    out.push(kase('fp2_inv', `fp2_inv ${h2(z)}`, exact(Fp2.is0(z) ? 'none' : h2(Fp2.inv(z)))));
    const s = fp2SqrtInput(rng);
    out.push(kase('fp2_sqrt', `fp2_sqrt ${h2(s)}`, fp2SqrtCheck(s)));
    out.push(kase('fp2_sign', `fp2_sign ${h2(s)}`, exact(String(fp2Sign(s)))));
    const k = fieldValue(FP, rng);
    out.push(
      kase(
        'fp2_mul_fp',
        `fp2_mul_fp ${h2(a)} ${hex(k, 48)}`,
        exact(h2(Fp2.mul(a, Fp2.create({ c0: k, c1: 0n })))),
      ),
    );
    const e = exponent(Fp, rng);
    out.push(kase('fp2_pow', `fp2_pow ${h2(a)} ${expHex(e)}`, exact(h2(Fp2.pow(a, e)))));
  }
  return out;
}

export function fieldCases(rng, n) {
  return [...PRIME_FIELDS.flatMap((f) => primeFieldCases(f, rng, n)), ...fp2Cases(rng, n)];
}

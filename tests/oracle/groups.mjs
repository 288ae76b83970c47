// groups.mjs - oracle cases for G1 and G2: scalar multiplication of random
// subgroup points by random and edge scalars, the group law along each
// coordinate system, equality, batch conversion, and both ZCash encodings
// of random points and of infinity, including corrupted encodings.
//
// Corrupted encodings: each case breaks one rule (a flag, the length, a
// coordinate >= p, y off the curve, x without a y, a point outside the
// subgroup) and a small model built on noble's field arithmetic names the
// error class the decoder must report. Whether noble's own decoder accepts
// the bytes is the reference for accept/reject; the model must agree with
// it (otherwise the harness itself is wrong and the case fails).
import { bls12_381 } from '@noble/curves/bls12-381.js';

import { big, exact, hex, kase } from './lib.mjs';

const { Fp, Fp2, Fr } = bls12_381.fields;
const P = Fp.ORDER,
  R = Fr.ORDER;

// Per group: how a coordinate is written and read, and the curve constant b.
export const GROUPS = [
  {
    name: 'g1',
    Point: bls12_381.G1.Point,
    F: Fp,
    W: 48,
    b: 4n,
    enc: (x) => hex(x, 48),
    dec: (h) => big(h),
    random: (rng) => rng.below(P),
    // The components of a coordinate, most significant (flag-carrying) first.
    parts: 1,
  },
  {
    name: 'g2',
    Point: bls12_381.G2.Point,
    F: Fp2,
    W: 96,
    b: Fp2.create({ c0: 4n, c1: 4n }),
    enc: (x) => hex(x.c1, 48) + hex(x.c0, 48),
    dec: (h) => Fp2.create({ c0: big(h.slice(96)), c1: big(h.slice(0, 96)) }),
    random: (rng) => Fp2.create({ c0: rng.below(P), c1: rng.below(P) }),
    parts: 2,
  },
];

function scalar(rng) {
  if (rng.chance(0.7)) return rng.below(R);
  return rng.pick([
    0n,
    1n,
    2n,
    3n,
    R - 1n,
    R - 2n,
    (R - 1n) / 2n,
    (R + 1n) / 2n,
    rng.below(1n << 64n),
    1n << BigInt(rng.int(255)),
  ]);
}

// Random subgroup points with known discrete logs, cheaply: a walk that
// adds one of a few random multiples of the generator per step, so that a
// point costs one addition instead of a scalar multiplication. Now and then
// it yields infinity, the generator or its negation instead.
export class PointWalk {
  constructor(g, rng) {
    this.g = g;
    this.rng = rng;
    this.steps = Array.from({ length: 8 }, () => {
      const t = 1n + rng.below(R - 1n);
      return { t, T: g.Point.BASE.multiply(t) };
    });
    this.s = 1n;
    this.cur = g.Point.BASE;
  }

  // { pt, s } with pt = [s] generator.
  next() {
    const { g, rng } = this;
    switch (rng.int(20)) {
      case 0:
        return { pt: g.Point.ZERO, s: 0n };
      case 1:
        return { pt: g.Point.BASE, s: 1n };
      case 2:
        return { pt: g.Point.BASE.negate(), s: R - 1n };
      default: {
        const step = rng.pick(this.steps);
        this.cur = this.cur.add(step.T);
        this.s = (this.s + step.t) % R;
        if (this.cur.is0()) return this.next();
        return { pt: this.cur, s: this.s };
      }
    }
  }

  point() {
    return this.next().pt;
  }
}

// The compressed encoding of an arithmetic result, written here from its
// affine coordinates: noble's toHex re-checks subgroup membership on every
// call, which would dominate the run. noble's own encoder is what the
// decoder cases compare against.
const HALF = (P - 1n) / 2n;
export function compress(g, pt) {
  if (pt.is0()) return 'c0' + '00'.repeat(g.W - 1);
  const { x, y } = pt.toAffine();
  const large = g.parts === 1 ? y > HALF : y.c1 > HALF || (y.c1 === 0n && y.c0 > HALF);
  return withFlags(g.enc(x), large ? 0xa0 : 0x80);
}

// mul_wide reuses the product of mul: its scalar is k + m r for a random m,
// which also reaches every length up to 64 bytes.
function wideScalar(rng, k) {
  const len = 32 + rng.int(33);
  return k + R * rng.below(((1n << BigInt(8 * len)) - k) / R);
}

function arithmeticCases(g, walk, rng, n) {
  const out = [];
  const { name } = g;
  const c = (pt) => compress(g, pt);
  for (let i = 0; i < n; i++) {
    const p = walk.point();
    const k = scalar(rng);
    const kp = c(p.multiplyUnsafe(k));
    out.push(kase(`${name}_mul`, `${name}_mul ${c(p)} ${hex(k, 32)}`, exact(`${kp} ${kp}`)));
    const wide = wideScalar(rng, k);
    const wideHex = hex(wide, Math.max(1, Math.ceil(wide.toString(16).length / 2)));
    out.push(kase(`${name}_mul_wide`, `${name}_mul_wide ${c(p)} ${wideHex}`, exact(kp)));
    const q = rng.pick([p, p, p.negate(), g.Point.ZERO, p.double(), walk.point()]);
    const sum = c(p.add(q));
    out.push(
      kase(`${name}_add`, `${name}_add ${c(p)} ${c(q)}`, exact(`${sum} ${sum} ${sum} ${sum}`)),
    );
    const d = c(p.double()),
      m = c(p.negate());
    out.push(kase(`${name}_dbl_neg`, `${name}_dbl_neg ${c(p)}`, exact(`${d} ${d} ${m} ${m}`)));
    const e = p.equals(q) ? 1 : 0;
    out.push(kase(`${name}_eq`, `${name}_eq ${c(p)} ${c(q)}`, exact(`${e} ${e}`)));
    if (i % 10 === 0) {
      const ps = Array.from({ length: 1 + rng.int(16) }, () => walk.point());
      out.push(
        kase(
          `${name}_batch_dbl`,
          `${name}_batch_dbl ${ps.map(c).join(' ')}`,
          exact(ps.map((x) => c(x.double())).join(' ')),
        ),
      );
    }
  }
  return out;
}

// ---- encodings ----

function onCurve(g, x, y) {
  const { F } = g;
  return F.eql(F.sqr(y), F.add(F.mul(F.sqr(x), x), g.b));
}

// A coordinate >= p in one component, written as raw hex of W bytes. For the
// top component the value stays below 2^381 so that it cannot touch the flags.
function nonCanonical(g, rng, x) {
  const top = rng.int(g.parts) === 0;
  const bad = top ? P + rng.below((1n << 381n) - P) : P + rng.below((1n << 384n) - P);
  const h = g.enc(x);
  if (g.parts === 1) return hex(bad, 48);
  return top ? hex(bad, 48) + h.slice(96) : h.slice(0, 96) + hex(bad, 48);
}

function withFlags(h, set, clear = 0) {
  const b = Buffer.from(h, 'hex');
  b[0] = (b[0] | set) & ~clear;
  return b.toString('hex');
}

function toggleFlags(h, bits) {
  const b = Buffer.from(h, 'hex');
  b[0] ^= bits;
  return b.toString('hex');
}

// x^3 + b has no root: 'nosqrt'. Otherwise the point is outside the subgroup
// except with probability 1 / cofactor (noble's decoder settles that case).
function compressedClass(g, x) {
  try {
    g.F.sqrt(g.F.add(g.F.mul(g.F.sqr(x), x), g.b));
  } catch {
    return 'nosqrt';
  }
  return 'notinsubgroup';
}

// An x on the curve whose points are (almost surely) outside the subgroup.
function offSubgroup(g, rng) {
  for (;;) {
    const x = g.random(rng);
    try {
      const y = g.F.sqrt(g.F.add(g.F.mul(g.F.sqr(x), x), g.b));
      return { x, y };
    } catch {
      continue;
    }
  }
}

// One corrupted (or intact) compressed encoding: { bytes, cls } where cls is
// the class the decoder must report, 'ok' for bytes it must accept.
function compressedVariant(g, rng, pt) {
  const h = compress(g, pt),
    inf = pt.is0(),
    W = g.W;
  switch (rng.int(11)) {
    case 0:
      return { kind: 'intact', bytes: h, cls: 'ok' };
    case 1:
      return inf
        ? { kind: 'inf+sign', bytes: withFlags(h, 0x20), cls: 'flags' }
        : { kind: 'sign flipped', bytes: toggleFlags(h, 0x20), cls: 'ok' };
    case 2:
      return { kind: 'no compression flag', bytes: withFlags(h, 0, 0x80), cls: 'flags' };
    case 3: {
      if (inf) {
        const b = Buffer.from(h, 'hex');
        b[1 + rng.int(W - 1)] |= 1 << rng.int(8);
        return { kind: 'inf+garbage', bytes: b.toString('hex'), cls: 'flags' };
      }
      return { kind: 'infinity flag on a point', bytes: withFlags(h, 0x40), cls: 'flags' };
    }
    case 4: {
      const x = nonCanonical(g, rng, inf ? g.F.ZERO : pt.toAffine().x);
      return { kind: 'x >= p', bytes: withFlags(x, 0x80 | (rng.int(2) << 5)), cls: 'noncanonical' };
    }
    case 5:
    case 6:
    case 7: {
      const x = g.random(rng),
        sign = rng.int(2) << 5;
      return {
        kind: 'random x',
        bytes: withFlags(g.enc(x), 0x80 | sign),
        cls: compressedClass(g, x),
      };
    }
    case 8:
      return {
        kind: 'x = 0 without infinity',
        bytes: withFlags(g.enc(g.F.ZERO), 0x80),
        cls: compressedClass(g, g.F.ZERO),
      };
    case 9:
      return { kind: 'short', bytes: h.slice(0, -2), cls: 'length' };
    default:
      return { kind: 'long', bytes: h + '00', cls: 'length' };
  }
}

function uncompressedVariant(g, rng, pt) {
  const h = pt.toHex(false),
    inf = pt.is0(),
    W = g.W;
  const x = inf ? g.F.ZERO : pt.toAffine().x,
    y = inf ? g.F.ZERO : pt.toAffine().y;
  switch (rng.int(14)) {
    case 0:
    case 11:
    case 12:
      return { kind: 'intact', bytes: h, cls: 'ok' };
    case 1:
      return { kind: 'compression flag', bytes: withFlags(h, 0x80), cls: 'flags' };
    case 2:
      return { kind: 'sign flag', bytes: withFlags(h, 0x20), cls: 'flags' };
    case 3: {
      if (!inf)
        return { kind: 'infinity flag on a point', bytes: withFlags(h, 0x40), cls: 'flags' };
      const b = Buffer.from(h, 'hex');
      b[1 + rng.int(2 * W - 1)] |= 1 << rng.int(8);
      return { kind: 'inf+garbage', bytes: b.toString('hex'), cls: 'flags' };
    }
    case 4:
      return { kind: 'x >= p', bytes: nonCanonical(g, rng, x) + g.enc(y), cls: 'noncanonical' };
    case 5:
      return { kind: 'y >= p', bytes: g.enc(x) + nonCanonical(g, rng, y), cls: 'noncanonical' };
    case 6:
    case 7: {
      const y2 = g.random(rng);
      const cls = onCurve(g, x, y2) ? 'notinsubgroup' : 'notoncurve';
      return { kind: 'random y', bytes: g.enc(x) + g.enc(y2), cls };
    }
    case 8:
    case 9: {
      const q = offSubgroup(g, rng);
      return { kind: 'on curve, random x', bytes: g.enc(q.x) + g.enc(q.y), cls: 'notinsubgroup' };
    }
    case 10:
      return { kind: '(0, 0) without infinity', bytes: '00'.repeat(2 * W), cls: 'notoncurve' };
    default:
      return rng.int(2)
        ? { kind: 'short', bytes: h.slice(0, -2), cls: 'length' }
        : { kind: 'long', bytes: h + '00', cls: 'length' };
  }
}

function nobleDecode(g, bytes) {
  try {
    return g.Point.fromHex(bytes);
  } catch {
    return null;
  }
}

// The checked decoders: noble decides accept/reject (pt: its decoded point
// or null), the model the error class.
function decodeCase(g, op, v, pt) {
  const req = `${g.name}_${op} ${v.bytes}`;
  if ((pt !== null) !== (v.cls === 'ok')) {
    return kase(
      `${g.name}_${op}`,
      req,
      () => `harness: model says ${v.cls} but noble ${pt ? 'accepts' : 'rejects'} (${v.kind})`,
    );
  }
  const want = pt ? `ok ${pt.toHex(true)} ${pt.toHex(false)}` : `err ${v.cls}`;
  return kase(`${g.name}_${op}`, req, (got) =>
    got === want ? null : `${v.kind}: expected ${want}`,
  );
}

// The unchecked decoder: flags, length and canonical form only; the answer
// reports the on-curve and subgroup predicates for the decoded point. An
// on-curve point that noble's checked decoder rejects is outside the subgroup.
function uncheckedCase(g, v, pt) {
  const req = `${g.name}_deserialize_unchecked ${v.bytes}`;
  let want;
  if (['flags', 'noncanonical', 'length'].includes(v.cls) || v.kind.startsWith('(0, 0)')) {
    want = `err ${v.cls}`;
  } else {
    const x = g.dec(withFlags(v.bytes.slice(0, 2 * g.W), 0, 0xe0));
    const y = g.dec(v.bytes.slice(2 * g.W));
    const inf = (parseInt(v.bytes.slice(0, 2), 16) & 0x40) !== 0;
    const on = inf || onCurve(g, x, y);
    want = `ok ${on ? 1 : 0} ${on ? 1 : 0} ${on ? (pt ? 1 : 0) : '-'}`;
  }
  return kase(`${g.name}_deserialize_unchecked`, req, (got) =>
    got === want ? null : `${v.kind}: expected ${want}`,
  );
}

function encodingCases(g, walk, rng, n) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const pt = rng.chance(0.1) ? g.Point.ZERO : walk.point();
    const cv = compressedVariant(g, rng, pt);
    out.push(decodeCase(g, 'uncompress', cv, nobleDecode(g, cv.bytes)));
    const uv = uncompressedVariant(g, rng, pt);
    const upt = nobleDecode(g, uv.bytes);
    out.push(decodeCase(g, 'deserialize', uv, upt));
    out.push(uncheckedCase(g, uv, upt));
  }
  return out;
}

// n cases per G1 operation and n / 2 per G2 operation (noble's G2 is slow).
export function groupCases(rng, n) {
  return GROUPS.flatMap((g, i) => {
    const walk = new PointWalk(g, rng),
      m = i === 0 ? n : Math.ceil(n / 2);
    return [...arithmeticCases(g, walk, rng, m), ...encodingCases(g, walk, rng, m)];
  });
}

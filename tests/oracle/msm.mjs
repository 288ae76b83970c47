// msm.mjs - oracle cases for the CPU multi-scalar multiplication of G1 and
// G2: Pippenger on one and on three threads, the split MSM, the bitmap sum
// of the bases whose scalar is one, and fixed-base multiplication.
//
// Bases come from PointWalk, so their discrete logs s_i are known and the
// expected sum is one noble multiplication: sum k_i [s_i] G = [sum k_i s_i] G.
// Scalar mixes follow the MSM list: uniform, bit-only (the split
// path), edge values (0, 1, r - 1), repeated bases and infinity bases.
import { bls12_381 } from '@noble/curves/bls12-381.js';

import { GROUPS, PointWalk, compress } from './groups.mjs';
import { exact, hex, kase } from './lib.mjs';

const R = bls12_381.fields.Fr.ORDER;
const SIZES = [0, 1, 2, 3, 5, 7, 16, 31, 64, 100, 255];

function msmScalar(kind, rng) {
  switch (kind) {
    case 'bits':
      return rng.chance(0.1) ? rng.below(R) : BigInt(rng.int(2));
    case 'edge':
      return rng.pick([0n, 1n, 2n, R - 1n, R - 2n, rng.below(1n << 64n)]);
    default:
      return rng.chance(0.05) ? 0n : rng.below(R);
  }
}

function msmTerms(g, walk, rng, n, kind) {
  const shared = walk.next();
  return Array.from({ length: n }, () => {
    let base = kind === 'repeated' && rng.chance(0.8) ? shared : walk.next();
    if (rng.chance(0.05)) base = { pt: g.Point.ZERO, s: 0n };
    return { base, k: msmScalar(kind, rng) };
  });
}

function msmCase(g, walk, rng, n) {
  const kind = rng.pick(['uniform', 'bits', 'edge', 'repeated']);
  const terms = msmTerms(g, walk, rng, n, kind);
  let sum = 0n,
    ones = 0n;
  for (const { base, k } of terms) {
    sum = (sum + k * base.s) % R;
    if (k === 1n) ones = (ones + base.s) % R;
  }
  const at = (s) => compress(g, g.Point.BASE.multiplyUnsafe(s));
  const total = at(sum);
  const args = terms.map(({ base, k }) => `${compress(g, base.pt)} ${hex(k, 32)}`).join(' ');
  return kase(
    `${g.name}_msm`,
    `${g.name}_msm ${args}`.trimEnd(),
    exact(`${total} ${total} ${total} ${at(ones)}`),
  );
}

function fixedBaseCase(g, walk, rng) {
  const base = walk.next();
  const ks = Array.from({ length: 1 + rng.int(8) }, () =>
    msmScalar(rng.pick(['edge', 'uniform']), rng),
  );
  const want = ks.map((k) => compress(g, g.Point.BASE.multiplyUnsafe((k * base.s) % R)));
  return kase(
    `${g.name}_fixed_base_mul`,
    `${g.name}_fixed_base_mul ${compress(g, base.pt)} ${ks.map((k) => hex(k, 32)).join(' ')}`,
    exact(want.join(' ')),
  );
}

// n MSMs for G1 (one of 1024 terms), n / 2 for G2; n / 4 fixed-base requests each.
export function msmCases(rng, n) {
  return GROUPS.flatMap((g, i) => {
    const walk = new PointWalk(g, rng),
      m = i === 0 ? n : Math.ceil(n / 2);
    const out = [];
    for (let j = 0; j < m; j++) {
      const size = i === 0 && j === 0 ? 1024 : rng.pick(SIZES) + rng.int(4);
      out.push(msmCase(g, walk, rng, size));
      if (j % 4 === 0) out.push(fixedBaseCase(g, walk, rng));
    }
    return out;
  });
}

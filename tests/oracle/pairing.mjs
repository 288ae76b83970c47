// pairing.mjs - oracle cases for Fp12 arithmetic (products, inverse,
// Frobenius maps, the sparse line product, cyclotomic squaring and
// exponentiation by x) and for the pairing: values e(P, Q) compared with
// noble's pairing, and product checks prod e(P_i, Q_i) == 1.
//
// Product checks use points with known discrete logs (PointWalk), so the
// expected answer follows from bilinearity: prod e([s_i] G1, [t_i] G2) =
// e(G1, G2)^(sum s_i t_i) is one exactly when sum s_i t_i = 0 mod r, since
// e(G1, G2) has order r. A few of them are also evaluated with noble's
// pairingBatch to confirm that reasoning on real values.
import { bls12_381 } from '@noble/curves/bls12-381.js';

import { fieldValue } from './fields.mjs';
import { GROUPS, PointWalk, compress } from './groups.mjs';
import { exact, hex, kase } from './lib.mjs';

const { Fp, Fp2, Fp12, Fr } = bls12_381.fields;
const R = Fr.ORDER;
const FP = { F: Fp, bytes: 48, R: 1n << 384n };
const [G1, G2] = GROUPS;
// |x| for the BLS12-381 parameter x = -0xd201000000010000.
const X_ABS = 0xd201000000010000n;

const fp2 = (rng) => Fp2.create({ c0: fieldValue(FP, rng), c1: fieldValue(FP, rng) });
const h2 = (a) => `${hex(a.c0, 48)} ${hex(a.c1, 48)}`;
const fp6 = (c0, c1, c2) => ({ c0, c1, c2 });
const fp12 = (rng) => ({
  c0: fp6(fp2(rng), fp2(rng), fp2(rng)),
  c1: fp6(fp2(rng), fp2(rng), fp2(rng)),
});
const h12 = (a) =>
  [a.c0, a.c1]
    .flatMap((s) => [s.c0, s.c1, s.c2])
    .map(h2)
    .join(' ');

// An element of the cyclotomic subgroup: f^((p^6 - 1)(p^2 + 1)).
function cyclotomic(rng) {
  const f = fp12(rng);
  const g = Fp12.mul(Fp12.conjugate(f), Fp12.inv(f));
  return Fp12.mul(Fp12.frobeniusMap(g, 2), g);
}

function fp12Cases(rng, n) {
  const out = [];
  const ZERO12 = { c0: fp6(Fp2.ZERO, Fp2.ZERO, Fp2.ZERO), c1: fp6(Fp2.ZERO, Fp2.ZERO, Fp2.ZERO) };
  for (let i = 0; i < n; i++) {
    const a = fp12(rng),
      b = fp12(rng),
      g = cyclotomic(rng);
    out.push(kase('fp12_mul', `fp12_mul ${h12(a)} ${h12(b)}`, exact(h12(Fp12.mul(a, b)))));
    out.push(kase('fp12_sqr', `fp12_sqr ${h12(a)}`, exact(h12(Fp12.sqr(a)))));
    const z = rng.chance(0.05) ? ZERO12 : a;
    out.push(
      kase('fp12_inv', `fp12_inv ${h12(z)}`, exact(Fp12.is0(z) ? 'none' : h12(Fp12.inv(z)))),
    );
    out.push(kase('fp12_conj', `fp12_conj ${h12(a)}`, exact(h12(Fp12.conjugate(a)))));
    const frob = [1, 2, 3].map((k) => h12(Fp12.frobeniusMap(a, k))).join(' ');
    out.push(kase('fp12_frobenius', `fp12_frobenius ${h12(a)}`, exact(frob)));
    const [c0, c1, c4] = [fp2(rng), fp2(rng), fp2(rng)];
    const line = { c0: fp6(c0, c1, Fp2.ZERO), c1: fp6(Fp2.ZERO, c4, Fp2.ZERO) };
    out.push(
      kase(
        'fp12_mul_by_014',
        `fp12_mul_by_014 ${h12(a)} ${h2(c0)} ${h2(c1)} ${h2(c4)}`,
        exact(h12(Fp12.mul(a, line))),
      ),
    );
    out.push(kase('fp12_cyclotomic_sqr', `fp12_cyclotomic_sqr ${h12(g)}`, exact(h12(Fp12.sqr(g)))));
    out.push(
      kase(
        'fp12_cyclotomic_exp_x',
        `fp12_cyclotomic_exp_x ${h12(g)}`,
        exact(h12(Fp12.conjugate(Fp12.pow(g, X_ABS)))),
      ),
    );
  }
  return out;
}

// Pairs as "P Q" request arguments.
const args = (pairs) => pairs.map(([p, q]) => `${compress(G1, p)} ${compress(G2, q)}`).join(' ');

function checkCase(kind, pairs, one) {
  const want = one ? '1 1' : '0 0';
  return kase('pairing_check', `pairing_check ${args(pairs)}`, (got) =>
    got === want ? null : `${kind}: expected ${want}`,
  );
}

// e(aP, bQ) e(-abP, Q) = 1, and with -abP replaced by -cP, c != ab: != 1.
function bilinearCases(w1, w2, rng) {
  const P = w1.point(),
    Q = w2.point();
  const a = 1n + rng.below(R - 1n),
    b = 1n + rng.below(R - 1n);
  const ab = (a * b) % R,
    c = (ab + 1n + rng.below(R - 1n)) % R;
  const aP = P.multiplyUnsafe(a),
    bQ = Q.multiplyUnsafe(b);
  const trivial = P.is0() || Q.is0();
  return [
    checkCase(
      'e(aP, bQ) e(-abP, Q)',
      [
        [aP, bQ],
        [P.multiplyUnsafe(ab).negate(), Q],
      ],
      true,
    ),
    checkCase(
      'e(aP, bQ) e(-cP, Q), c != ab',
      [
        [aP, bQ],
        [P.multiplyUnsafe(c).negate(), Q],
      ],
      trivial,
    ),
  ];
}

// k random pairs with known logs; sometimes a last pair cancels the product.
function productCase(w1, w2, rng) {
  const k = rng.int(5);
  const pairs = [];
  let sum = 0n;
  for (let i = 0; i < k; i++) {
    const p = w1.next(),
      q = w2.next();
    pairs.push([p.pt, q.pt]);
    sum = (sum + p.s * q.s) % R;
  }
  if (rng.chance(0.5)) {
    pairs.push([G1.Point.BASE.multiplyUnsafe((R - sum) % R), G2.Point.BASE]);
    sum = 0n;
  }
  return { pairs, one: sum === 0n };
}

// Confirms with noble's pairingBatch that the product is one exactly as
// predicted (noble refuses infinity, whose pairs contribute the factor 1).
function confirmWithNoble({ pairs, one }) {
  const finite = pairs.filter(([g1, g2]) => !g1.is0() && !g2.is0());
  const value = bls12_381.pairingBatch(finite.map(([g1, g2]) => ({ g1, g2 })));
  if (Fp12.eql(value, Fp12.ONE) !== one) throw new Error('oracle: noble contradicts bilinearity');
}

function pairingValueCase(w1, w2) {
  const p = w1.point(),
    q = w2.point();
  const want = h12(p.is0() || q.is0() ? Fp12.ONE : bls12_381.pairing(p, q));
  return kase('pairing', `pairing ${args([[p, q]])}`, exact(want));
}

export function pairingCases(rng, n) {
  const w1 = new PointWalk(G1, rng),
    w2 = new PointWalk(G2, rng);
  const out = [...fp12Cases(rng, n), checkCase('empty product', [], true)];
  for (let i = 0; i < n; i++) {
    out.push(...bilinearCases(w1, w2, rng));
    const prod = productCase(w1, w2, rng);
    if (i % 8 === 0) confirmWithNoble(prod);
    out.push(checkCase(`${prod.pairs.length} pairs`, prod.pairs, prod.one));
    if (i % 4 === 0) out.push(pairingValueCase(w1, w2));
  }
  return out;
}

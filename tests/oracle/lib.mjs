// lib.mjs - helpers shared by the oracle case generators: a seeded random
// stream, hex <-> bigint conversion, and the case record every generator
// returns.
//
// The stream is SHA-256 in counter mode over the seed (node:crypto), so a
// run is reproduced exactly by its printed seed, and nothing here depends
// on the library under test or on the oracle library.
import { createHash } from 'node:crypto';

export class Rng {
  constructor(seed) {
    this.seed = seed;
    this.counter = 0n;
    this.pool = Buffer.alloc(0);
  }

  bytes(n) {
    while (this.pool.length < n) {
      const h = createHash('sha256').update(`${this.seed}/${this.counter++}`).digest();
      this.pool = Buffer.concat([this.pool, h]);
    }
    const out = this.pool.subarray(0, n);
    this.pool = this.pool.subarray(n);
    return Buffer.from(out);
  }

  // Uniform in [0, n) by rejection sampling on the bit length of n - 1.
  below(n) {
    if (n <= 1n) return 0n;
    const bits = (n - 1n).toString(2).length;
    const mask = (1n << BigInt(bits)) - 1n;
    for (;;) {
      const v = BigInt('0x' + this.bytes(Math.ceil(bits / 8)).toString('hex')) & mask;
      if (v < n) return v;
    }
  }

  int(n) {
    return Number(this.below(BigInt(n)));
  }

  chance(p) {
    return this.int(1 << 20) < p * (1 << 20);
  }

  pick(list) {
    return list[this.int(list.length)];
  }
}

// Canonical big-endian hex of v in exactly `bytes` bytes.
export function hex(v, bytes) {
  const s = v.toString(16);
  if (v < 0n || s.length > 2 * bytes) throw new Error(`hex: ${v} does not fit ${bytes} bytes`);
  return s.padStart(2 * bytes, '0');
}

export function big(h) {
  return BigInt('0x' + (h === '' ? '0' : h));
}

export function reverseHex(h) {
  return Buffer.from(h, 'hex').reverse().toString('hex');
}

// A case: the request line, the operation name for the summary, and a check
// that returns null when the driver's answer is right, else what is wrong.
export function kase(op, req, check) {
  return { op, req, check };
}

// A check that wants exactly `expected` (a string).
export function exact(expected) {
  return (got) => (got === expected ? null : `expected ${expected}`);
}

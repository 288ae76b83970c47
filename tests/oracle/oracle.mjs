// oracle.mjs - checks cuzk's BLS12-381 arithmetic against @noble/curves, a
// JavaScript implementation we did not write, on fresh random values.
//
// Usage: node oracle.mjs PATH/TO/cuzk-oracle
// Environment: ORACLE_SEED replays a run (the seed is printed first);
// ORACLE_SCALE multiplies the number of cases (default 1).
//
// How it works: the case generators (fields.mjs, groups.mjs, msm.mjs, pairing.mjs)
// draw inputs from a seeded stream and pair each request line for the C
// driver (tools/cuzk-oracle) with a check built from noble's answer. All
// requests go to one run of the driver; its answers come back one line per
// request and each is checked. The run fails (exit 1) on any mismatch, on a
// driver error, or on a wrong number of answers.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';

import { fieldCases } from './fields.mjs';
import { groupCases } from './groups.mjs';
import { msmCases } from './msm.mjs';
import { pairingCases } from './pairing.mjs';
import { Rng } from './lib.mjs';

const MAX_REPORTED = 20;

function parseArgs() {
  const driver = process.argv[2];
  if (!driver || process.argv.length !== 3) {
    console.error('usage: node oracle.mjs PATH/TO/cuzk-oracle');
    process.exit(2);
  }
  const seed = process.env.ORACLE_SEED || randomBytes(8).toString('hex');
  const scale = Number(process.env.ORACLE_SCALE || '1');
  if (!(scale > 0)) {
    console.error(`oracle: ORACLE_SCALE=${process.env.ORACLE_SCALE} is not a positive number`);
    process.exit(2);
  }
  return { driver, seed, scale };
}

function generate(rng, scale) {
  const n = (base) => Math.max(1, Math.round(base * scale));
  return [
    ...fieldCases(rng, n(300)),
    ...groupCases(rng, n(150)),
    ...msmCases(rng, n(32)),
    ...pairingCases(rng, n(32)),
  ];
}

function runDriver(driver, cases) {
  const input = cases.map((c) => c.req).join('\n') + '\n';
  const r = spawnSync(driver, [], { input, maxBuffer: 1 << 30, encoding: 'utf8' });
  if (r.error) throw new Error(`cannot run ${driver}: ${r.error.message}`);
  if (r.status !== 0) {
    throw new Error(`${driver} exited with ${r.status ?? r.signal}: ${r.stderr.trim()}`);
  }
  const answers = r.stdout.split('\n');
  if (answers.at(-1) === '') answers.pop();
  if (answers.length !== cases.length)
    throw new Error(`${driver} gave ${answers.length} answers to ${cases.length} requests`);
  return answers;
}

function compare(cases, answers) {
  const perOp = new Map();
  const failures = [];
  cases.forEach((c, i) => {
    const why = c.check(answers[i]);
    const tally = perOp.get(c.op) || { passed: 0, failed: 0 };
    if (why === null) tally.passed++;
    else {
      tally.failed++;
      failures.push({ c, got: answers[i], why });
    }
    perOp.set(c.op, tally);
  });
  return { perOp, failures };
}

function report({ perOp, failures }, seed) {
  for (const f of failures.slice(0, MAX_REPORTED)) {
    console.log(`FAIL ${f.c.op}: ${f.why}\n  request: ${f.c.req}\n  answer:  ${f.got}`);
  }
  if (failures.length > MAX_REPORTED)
    console.log(`... and ${failures.length - MAX_REPORTED} more failures`);
  const ops = [...perOp.entries()].map(
    ([op, t]) => `${op} ${t.passed}${t.failed ? `/${t.failed} FAILED` : ''}`,
  );
  console.log(`oracle: cases per operation: ${ops.join(', ')}`);
  const passed = [...perOp.values()].reduce((s, t) => s + t.passed, 0);
  console.log(`oracle: ${passed} passed, ${failures.length} failed (ORACLE_SEED=${seed})`);
  return failures.length === 0;
}

function main() {
  const { driver, seed, scale } = parseArgs();
  console.log(`oracle: ORACLE_SEED=${seed} (set it to replay this run)`);
  const t0 = Date.now();
  const cases = generate(new Rng(seed), scale);
  const t1 = Date.now();
  let answers;
  try {
    answers = runDriver(driver, cases);
  } catch (e) {
    console.log(`oracle: FAILED: ${e.message} (ORACLE_SEED=${seed})`);
    process.exit(1);
  }
  const ok = report(compare(cases, answers), seed);
  const checkMs = Date.now() - t1;
  console.log(
    `oracle: ${cases.length} requests; noble ${t1 - t0} ms, driver and checks ${checkMs} ms`,
  );
  process.exit(ok ? 0 : 1);
}

main();

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeLead, pairedLead } from '../../src/eval/pairedLead.ts';

const curve = (...pts: [number, number][]) => pts.map(([robotSeconds, success]) => ({ robotSeconds, success }));

test('paired lead: per-seed differences at equal robot time, their mean with a t interval (worked numbers)', () => {
  // b reaches 0.6 at 200 s, so 0.55 at 100 s (linear); a's success at 100 s differs by seed.
  const b = new Map([0, 1, 2, 3].map((s) => [s, curve([0, 0.5], [200, 0.6])]));
  const a = new Map([
    [0, curve([0, 0.5], [100, 0.7])],
    [1, curve([0, 0.5], [100, 0.6])],
    [2, curve([0, 0.5], [100, 0.5])],
    [3, curve([0, 0.5], [50, 0.55], [150, 0.65])],
  ]);
  // Differences 0.15, 0.05, −0.05, 0.05: mean 0.05, sd 0.0816, t(3 df) 3.182, half-width 0.130.
  const lead = pairedLead(a, b, 100)!;
  assert.equal(lead.seeds, 4);
  assert.equal(lead.ahead, 3);
  assert.equal(lead.behind, 1);
  assert.equal(describeLead(lead), '+5.0 at 100 robot-s (−8.0 to +18.0; ahead in 3, behind in 1 of 4)');
  assert.ok(Math.abs(lead.mean - 0.05) < 1e-9, `mean ${lead.mean}`);
  assert.ok(Math.abs(lead.low - -0.0799) < 2e-3 && Math.abs(lead.high - 0.1799) < 2e-3, `${lead.low} ${lead.high}`);
});

test('paired lead: only seeds both arms ran; none past either arm spent robot time, nor from one seed', () => {
  const b = new Map([
    [0, curve([0, 0.5], [200, 0.6])],
    [1, curve([0, 0.5], [200, 0.7])],
  ]);
  const a = new Map([
    [0, curve([0, 0.5], [100, 0.7])],
    [1, curve([0, 0.5], [100, 0.7])],
    [7, curve([0, 0.5], [100, 0.1])],
  ]);
  assert.deepEqual(
    [pairedLead(a, b, 100)!.seeds, pairedLead(a, b, 100)!.mean.toFixed(3)],
    [2, '0.125'],
    'seed 7 has no partner and is left out',
  );
  assert.equal(pairedLead(a, b, 150), null, 'a had spent only 100 robot-s');
  assert.equal(pairedLead(new Map([[0, a.get(0)!]]), b, 100), null, 'one seed says nothing of the spread');
});

test('paired lead: arms that tie in every seed are said to be the same, not behind', () => {
  const b = new Map([0, 1, 2].map((s) => [s, curve([0, 0.5], [100, 0.6])]));
  const lead = pairedLead(b, b, 50)!;
  assert.deepEqual([lead.ahead, lead.behind], [0, 0]);
  assert.equal(describeLead(lead), '+0.0 at 50 robot-s (+0.0 to +0.0; the same in all 3 seeds)');
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rng } from '../../src/core/rng.ts';

test('same seed, same stream; different seeds differ', () => {
  const a = new Rng(7);
  const b = new Rng(7);
  const c = new Rng(8);
  const xs = Array.from({ length: 20 }, () => a.next());
  assert.deepEqual(
    xs,
    Array.from({ length: 20 }, () => b.next()),
  );
  assert.notDeepEqual(
    xs,
    Array.from({ length: 20 }, () => c.next()),
  );
});

test('uniform mean and normal moments are right', () => {
  const r = new Rng(1);
  const n = 20000;
  let su = 0;
  let sn = 0;
  let sn2 = 0;
  for (let i = 0; i < n; i++) {
    const u = r.next();
    assert.ok(u >= 0 && u < 1);
    su += u;
    const z = r.normal();
    sn += z;
    sn2 += z * z;
  }
  assert.ok(Math.abs(su / n - 0.5) < 0.01);
  assert.ok(Math.abs(sn / n) < 0.03);
  assert.ok(Math.abs(sn2 / n - 1) < 0.05);
  assert.throws(() => new Rng(NaN), /finite/);
});

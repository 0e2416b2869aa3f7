import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALL_ARMS, EXTRA_ARMS, REAL_ONLY, armFlags, runName } from '../../bench/wmrlArms.ts';

test('benchmark arms: ablations take their part away from the headline arm, in runs named after it', () => {
  for (const arm of [...ALL_ARMS, ...EXTRA_ARMS]) assert.ok(Array.isArray(armFlags(arm, 'wmrl')), arm);
  // Against the quickstart (reach's headline) an ablation is its own flags, in the run folder it always had.
  assert.deepEqual(armFlags('no-debias', 'wmrl'), ['--no-debias']);
  assert.equal(runName('no-debias', 'wmrl'), 'no-debias');
  // Against pick's headline it starts from that arm's flags, and its runs are kept apart.
  const bound = ['--imaginedWeight=trust', '--trust.confidence=1.645'];
  assert.deepEqual(armFlags('wmrl-trust-bound', 'wmrl-trust-bound'), bound);
  assert.deepEqual(armFlags('no-debias', 'wmrl-trust-bound'), [...bound, '--no-debias']);
  assert.equal(runName('no-debias', 'wmrl-trust-bound'), 'no-debias-of-wmrl-trust-bound');
  // Arms that are not ablations never change with the headline.
  assert.deepEqual(armFlags('real', 'wmrl-trust-bound'), REAL_ONLY);
  assert.equal(runName('anchors-only', 'wmrl-trust-bound'), 'anchors-only');
  // An ablation as the headline is itself, not itself twice.
  assert.deepEqual(armFlags('trust', 'trust'), ['--imaginedWeight=trust']);
  assert.equal(runName('trust', 'trust'), 'trust');
  assert.throws(() => armFlags('no-such-arm', 'wmrl'), /no benchmark arm 'no-such-arm'/);
});

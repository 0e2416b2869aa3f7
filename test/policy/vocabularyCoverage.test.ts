import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Tokenizer } from '../../src/policy/tokenizer.ts';
import { heldOutColoursMissing } from '../../src/policy/vocabularyCoverage.ts';

test('held-out colours: a single-family vocabulary lacks its own held-out colour', () => {
  // Pick's train instructions never name yellow (its held-out colour), so yellow is <unk>.
  const pickOnly = Tokenizer.fromTexts(['pick up the red block', 'lift the green block'], 8);
  assert.deepEqual(heldOutColoursMissing(pickOnly.vocab, ['pick']), [{ family: 'pick', color: 'yellow' }]);
});

test('held-out colours: another family that trains on the colour supplies the word', () => {
  // Yellow is a train colour of reach; purple (reach's held-out colour) stays missing.
  const withReach = Tokenizer.fromTexts(['pick up the red block', 'reach the yellow ball'], 8);
  assert.deepEqual(heldOutColoursMissing(withReach.vocab, ['pick', 'reach', 'pick']), [
    { family: 'reach', color: 'purple' },
  ]);
  assert.deepEqual(heldOutColoursMissing(withReach.vocab, []), []);
});

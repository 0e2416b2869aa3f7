import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rng } from '../../src/core/rng.ts';
import { PAD, UNK } from '../../src/policy/tokenizer.ts';
import { dropWords } from '../../src/policy/wordDropout.ts';

// Two instructions of 4 words, padded to 6 tokens each.
const batch = () => Int32Array.from([5, 6, 7, 8, PAD, PAD, 9, 6, 10, 8, PAD, PAD]);

test('word dropout: p = 0 keeps every token, p = 1 turns every word (never padding) into <unk>', () => {
  assert.deepEqual(dropWords(batch(), 0, new Rng(1)), batch());
  assert.deepEqual(dropWords(batch(), 1, new Rng(1)), Int32Array.from([1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 0, 0]));
  assert.equal(UNK, 1);
});

test('word dropout: words drop at the given rate, the same ones for the same seed', () => {
  const tokens = new Int32Array(20000).fill(7);
  dropWords(tokens, 0.15, new Rng(3));
  const dropped = tokens.filter((t) => t === UNK).length / tokens.length;
  // 20000 draws: the standard error of the rate is sqrt(0.15 · 0.85 / 20000) ≈ 0.0025.
  assert.ok(Math.abs(dropped - 0.15) < 0.01, `dropped ${dropped}`);
  assert.deepEqual(dropWords(batch(), 0.5, new Rng(9)), dropWords(batch(), 0.5, new Rng(9)));
  assert.throws(() => dropWords(batch(), 1.5, new Rng(1)), /word dropout must be in \[0, 1\], got 1.5/);
});

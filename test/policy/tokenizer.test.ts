import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rng } from '../../src/core/rng.ts';
import { Tokenizer, UNK } from '../../src/policy/tokenizer.ts';
import { BUILT_IN } from '../../src/tasks/families.ts';
import { sampleTask } from '../../src/tasks/sampleTask.ts';

test('words outside the vocabulary are read by their spelling: forms of a known word, never a synonym', () => {
  const t = Tokenizer.fromTexts(['Pick the orange cube and place it in the box', 'pick up the red block'], 12);
  const id = (w: string) => t.vocab.indexOf(w);
  assert.deepEqual([...t.encode('pick the cubes')].slice(0, 3), [id('pick'), id('the'), id('cube')]);
  assert.equal(t.readAs('blocks'), 'block');
  assert.equal(t.readAs('picking'), 'pick');
  assert.equal(t.readAs('placed'), 'place');
  assert.equal(t.readAs('boxes'), 'box');
  for (const synonym of ['raise', 'grab', 'bin', 'lego']) assert.equal(t.readAs(synonym), undefined, synonym);
  assert.equal(t.encode('grab the lego')[0], UNK);
  assert.deepEqual(t.unknownWords('pick the cubes'), ['cubes'], 'still named as unseen');
});

test("the built-in families' held-out paraphrase words stay unread: the held-out split stays held out", () => {
  const train = [];
  const test_ = [];
  for (const family of BUILT_IN)
    for (let seed = 0; seed < 300; seed++) {
      train.push(sampleTask({ family }, 'train', new Rng(seed)).instruction);
      test_.push(sampleTask({ family }, 'test', new Rng(seed)).instruction);
    }
  const t = Tokenizer.fromTexts(train, 12);
  const unseen = [...new Set(test_.flatMap((s) => t.unknownWords(s)))].sort();
  assert.ok(unseen.length >= 5, unseen.join(' '));
  assert.deepEqual(
    unseen.filter((w) => t.readAs(w) !== undefined),
    [],
  );
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rng } from '../../src/core/rng.ts';
import { familyDef, BUILT_IN } from '../../src/tasks/families.ts';
import { sampleTask } from '../../src/tasks/sampleTask.ts';
import { enumerateInstructions, splitOf } from '../../src/tasks/splits.ts';

test('held-out split: colours and a paraphrase appear only in test', () => {
  for (const family of BUILT_IN) {
    const trainTexts = new Set<string>();
    const testTexts = new Set<string>();
    for (let seed = 0; seed < 400; seed++) {
      const train = sampleTask({ family }, 'train', new Rng(seed));
      assert.equal(train.split, 'train');
      assert.ok(!familyDef(family).heldOutColors.includes(train.color as never), `${family}: held-out colour in train`);
      assert.notEqual(train.template, familyDef(family).templates.length - 1);
      trainTexts.add(familyDef(family).templates[train.template]!);
      const held = sampleTask({ family }, 'test', new Rng(seed));
      assert.equal(held.split, 'test');
      testTexts.add(familyDef(family).templates[held.template]!);
    }
    const heldOutTemplate = familyDef(family).templates.at(-1)!;
    assert.ok(testTexts.has(heldOutTemplate) && !trainTexts.has(heldOutTemplate), `${family}: paraphrase held out`);
  }
  const rows = enumerateInstructions();
  assert.ok(rows.some((r) => r.split === 'test') && rows.some((r) => r.split === 'train'));
  assert.equal(splitOf('pick', 'yellow', 0), 'test');
});

/** A run recorded before the cleanup: its removed keys read as today's where they recorded what the code now does. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { removedAsToday, withoutRemovedKeys, wmrlConfigSchema } from '../../src/rl/config/wmrlConfig.ts';

const today = wmrlConfigSchema.parse({});

test('withoutRemovedKeys: keys recorded at what the code now does are dropped, others stay and are refused', () => {
  const recorded = {
    ...today,
    debiasMap: 'isotonic',
    contextual: { ridge: 1, minPairs: 64, window: 2000 },
    branch: { fraction: 0, recentEpisodes: 64, beforeClose: false },
    trust: { halfLife: 16, priorPairs: 16, confidence: 0 },
    worldModel: { ...today.worldModel, anchorRepeat: 1, warmupStd: 0, scoreRefitEvery: 0, warmupRefitEpochs: 0 },
  };
  assert.deepEqual(wmrlConfigSchema.parse(withoutRemovedKeys(recorded)), today);
  // Set otherwise, they stay, and the strict schema names them.
  const branched = withoutRemovedKeys({ ...recorded, branch: { fraction: 1, recentEpisodes: 64 } });
  assert.deepEqual((branched as { branch: unknown }).branch, { fraction: 1 });
  assert.equal(wmrlConfigSchema.safeParse(branched).success, false);
  assert.equal(removedAsToday('imaginedKlLimit', 0.1), false, 'an optional removed key set at all is a difference');
  assert.equal(removedAsToday('worldModel.anchorRepeat', 4), false);
  assert.equal(removedAsToday('worldModel.anchorRepeat', 1), true);
  // The goal and object the keyframes replaced: a run without them behaved as today's code; one told them did not.
  assert.equal(removedAsToday('worldModel.goal', 'none'), true);
  assert.equal(removedAsToday('worldModel.goal', 'localised'), false);
  assert.equal(removedAsToday('worldModel.object', 'localised'), false);
});

/**
 * An aborted episode never trains: every way training data is read (the datasets behind
 * pretrain / wm / train, a run's anchors, the scheduler's store) leaves aborted episodes out, and
 * each learner refuses one that slips through, naming it.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveConfig } from '../../src/core/config.ts';
import type { Episode } from '../../src/core/types.ts';
import { readEpisodes } from '../../src/cli/common.ts';
import { EpisodeStore } from '../../src/data/episodeStore.ts';
import { buildBcSamples } from '../../src/policy/bcDataset.ts';
import { policyConfigSchema } from '../../src/policy/policyConfig.ts';
import { selectDemonstrations } from '../../src/policy/pretrain.ts';
import { Tokenizer } from '../../src/policy/tokenizer.ts';
import { CalibrationScheduler } from '../../src/scheduler/calibrationScheduler.ts';
import { SqliteQueue } from '../../src/scheduler/sqliteQueue.ts';
import { WorldModel } from '../../src/worldmodel/worldModel.ts';
import { worldModelConfigSchema } from '../../src/worldmodel/worldModelConfig.ts';
import { collectMixedEpisodes } from '../helpers/simEpisodes.ts';

const dir = mkdtempSync(join(tmpdir(), 'wmrl-aborted-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('aborted episodes are stored but never read for training, and every learner refuses one', async () => {
  const complete = await collectMixedEpisodes({ families: ['reach'], perKind: 2, seed: 80 });
  // Cut-off attempts of the first two, as an aborted robot episode is stored.
  const aborted: Episode[] = complete.slice(0, 2).map((e, i) => ({ ...e, id: `aborted-${i}`, status: 'aborted' }));
  const data = join(dir, 'data');
  const store = await EpisodeStore.create(data, { robot: 'vx300' });
  for (const [i, e] of complete.entries()) {
    if (i < aborted.length) await store.append(aborted[i]!);
    await store.append(e);
  }
  await store.close();
  const ids = (episodes: Episode[]) => episodes.map((e) => e.id).sort();
  const completeIds = ids(complete);

  // pretrain, wm train / eval / rank and train --data all read datasets through readEpisodes.
  assert.deepEqual(ids(await readEpisodes([data])), completeIds);
  const stored: Episode[] = [];
  for await (const e of (await EpisodeStore.open(data)).episodes({ includeAborted: true })) stored.push(e);
  assert.equal(stored.length, complete.length + aborted.length, 'the aborted attempts are kept for inspection');
  // A run's anchors and the calibration scheduler read the same way (this store stands in for anchors/).
  const queue = SqliteQueue.open(join(dir, 'schedule.db'));
  try {
    const scheduler = new CalibrationScheduler({ queue, storeDir: data, robot: 'vx300' });
    assert.deepEqual([...(await scheduler.storedEpisodes()).keys()].sort(), completeIds);
  } finally {
    await queue.close();
  }

  // Handed over in memory anyway: behaviour cloning skips them, the learners refuse them.
  const policyConfig = resolveConfig(policyConfigSchema, { overrides: { 'bc.maxNoise': '1' } });
  const demos = selectDemonstrations([...aborted, ...complete], policyConfig);
  assert.ok(demos.length > 0 && demos.every((e) => e.status === 'complete'));
  const tokenizer = Tokenizer.fromTexts(
    complete.map((e) => e.task.instruction),
    8,
  );
  assert.throws(
    () =>
      buildBcSamples(tokenizer, [complete[0]!, aborted[0]!], { camera: 'scene', imageSize: 16, shiftAugment: false }),
    /behaviour cloning: episode aborted-0 is 'aborted'; aborted episodes never train/,
  );
  const wmConfig = resolveConfig(worldModelConfigSchema, {
    overrides: { kind: 'state', members: '2', hidden: '[8]', 'train.epochs': '1', 'train.k': '2' },
  });
  await assert.rejects(
    WorldModel.train([...complete, aborted[1]!], wmConfig),
    /world model training: episode aborted-1 is 'aborted'/,
  );
});

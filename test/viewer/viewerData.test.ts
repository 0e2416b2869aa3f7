/**
 * Imagination through standalone world models (`wmrl wm train` output), the other two sources
 * the viewer supports besides a run's perception model: the state kind also predicts object
 * poses (ghost objects), the video kind decodes frames for the imagined-camera panel.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { selectBackend } from '../../src/backend/selectBackend.ts';
import { resolveConfig } from '../../src/core/config.ts';
import { EpisodeStore } from '../../src/data/episodeStore.ts';
import type { Episode } from '../../src/core/types.ts';
import { WorldModel } from '../../src/worldmodel/worldModel.ts';
import { WORLD_MODEL_KERNELS, worldModelConfigSchema } from '../../src/worldmodel/worldModelConfig.ts';
import { saveWorldModel } from '../../src/worldmodel/worldModelFiles.ts';
import { ViewerData } from '../../src/viewer/viewerData.ts';
import { collectMixedEpisodes } from '../helpers/simEpisodes.ts';

const dir = mkdtempSync(join(tmpdir(), 'wmrl-viewer-data-'));
const dataDir = join(dir, 'data');
let episodes: Episode[];

before(async () => {
  await selectBackend('cpu', { requiredKernels: WORLD_MODEL_KERNELS, log: () => {} });
  episodes = await collectMixedEpisodes({ families: ['push'], perKind: 2, seed: 40, cameras: ['scene'] });
  const store = await EpisodeStore.create(dataDir, { robot: 'vx300' });
  for (const e of episodes) await store.append(e);
  await store.close();
});
after(() => rmSync(dir, { recursive: true, force: true }));

async function trainTiny(kind: 'state' | 'video'): Promise<string> {
  const config = resolveConfig(worldModelConfigSchema, {
    overrides: {
      kind,
      members: '2',
      hidden: '[16]',
      'train.epochs': '1',
      'train.k': '2',
      'video.epochs': '1',
      'video.imageSize': '16',
      'video.latent': '8',
      'video.patchDim': '4',
    },
  });
  const { model } = await WorldModel.train(episodes, config);
  const out = join(dir, kind);
  await saveWorldModel(model, join(out, 'model'));
  model.dispose();
  return out;
}

test('a state world model: ghosts include the task objects, no frames', async () => {
  const data = new ViewerData({ dataDirs: [dataDir], worldModelDir: await trainTiny('state') });
  try {
    await data.poll();
    assert.equal(data.episodes.length, episodes.length);
    const v = await data.episodeView(episodes[0]!.id);
    assert.ok(v.imagined, v.imaginationNote ?? '');
    assert.equal(v.imagined.kind, 'state');
    assert.equal(v.imagined.modelStep, null);
    const roles = v.imagined.ghostGeoms.map((g) => v.geoms.role[g]);
    assert.ok(roles.includes('robot') && roles.includes('object'), `ghost roles ${roles.join(',')}`);
    assert.equal(v.imagined.frames, null);
    assert.ok(v.imagined.ghostPoses.every(Number.isFinite));
  } finally {
    await data.close();
  }
});

test('a video world model: decoded frames per member and step, arm ghosts', async () => {
  const data = new ViewerData({ dataDirs: [dataDir], worldModelDir: await trainTiny('video') });
  try {
    await data.poll();
    const e = episodes[1]!;
    const v = await data.episodeView(e.id);
    assert.ok(v.imagined, v.imaginationNote ?? '');
    assert.equal(v.imagined.kind, 'video');
    assert.ok(v.imagined.frames);
    assert.equal(v.imagined.frames.size, 16);
    assert.equal(v.imagined.frames.data.length, (e.steps + 1) * 2 * 16 * 16 * 3);
    assert.ok(v.imagined.ghostGeoms.every((g) => v.geoms.role[g] === 'robot'));
  } finally {
    await data.close();
  }
});

test('without a world model the view says why there is no imagination', async () => {
  const data = new ViewerData({ dataDirs: [dataDir] });
  try {
    await data.poll();
    const v = await data.episodeView(episodes[0]!.id);
    assert.equal(v.imagined, null);
    assert.match(v.imaginationNote ?? '', /--world-model/);
    assert.equal(v.poses.length, (episodes[0]!.steps + 1) * v.geoms.count * 12);
    assert.ok(v.geoms.role.includes('zone'), 'push scenes show their goal zones');
  } finally {
    await data.close();
  }
});

test('bad inputs are refused with a clear message', () => {
  assert.throws(() => new ViewerData({}), /--run.*--data/);
  assert.throws(() => new ViewerData({ runDir: join(dir, 'nope') }), /does not exist/);
  assert.throws(() => new ViewerData({ dataDirs: [dir] }), /not a wmrl dataset/);
  assert.throws(() => new ViewerData({ dataDirs: [dataDir], worldModelDir: dataDir }), /holds no world model/);
});

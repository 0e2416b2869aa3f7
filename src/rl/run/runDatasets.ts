/**
 * Which datasets a `wmrl train` run learned from and drew its group starts from, by their ids (dataset.json's
 * datasetId) rather than their paths: `--resume` from another working directory, or after a folder was moved,
 * names the same datasets by other paths, while a resume with other datasets would go on learning from other
 * episodes and other starts than the run's record shows (the starts pool's draws are not checkpointed).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readManifest } from '../../data/datasetManifest.ts';

/** The ids of the datasets a run read, as train.config.json records them (`datasets`). */
export interface RunDatasets {
  data: string[];
  starts: string[];
}

/** Each folder's dataset id, sorted; a folder without dataset.json counts by its path (as given). */
async function idsOf(dirs: string[]): Promise<string[]> {
  const ids = await Promise.all(dirs.map(async (dir) => (await readManifest(dir))?.datasetId ?? `path:${dir}`));
  return [...new Set(ids)].sort();
}

export async function runDatasets(dataDirs: string[], startDirs: string[]): Promise<RunDatasets> {
  return { data: await idsOf(dataDirs), starts: await idsOf(startDirs) };
}

/**
 * A resume whose datasets differ from those the run's record names is refused, saying which; a run recorded
 * before runs recorded their datasets is not checked.
 */
export function refuseChangedDatasets(runDir: string, now: RunDatasets): void {
  const file = join(runDir, 'train.config.json');
  if (!existsSync(file)) return;
  const recorded = (JSON.parse(readFileSync(file, 'utf8')) as { datasets?: RunDatasets }).datasets;
  if (!recorded) return;
  const differing = (['data', 'starts'] as const).filter(
    (key) => JSON.stringify(recorded[key]) !== JSON.stringify(now[key]),
  );
  if (differing.length === 0) return;
  const list = differing
    .map((key) => `--${key} (run: ${recorded[key].join(', ')}; now: ${now[key].join(', ')})`)
    .join('; ');
  throw new Error(
    `--resume with other datasets than the run's (${file}, by dataset id): ${list}. Resume with the run's ` +
      'dataset folders (they may have moved), or start a new run in another --out',
  );
}

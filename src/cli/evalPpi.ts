/**
 * `wmrl eval --world-model`: the success rate from N real episodes per family and split plus M
 * imagined ones (prediction-powered inference, src/eval/ppiTable.ts). Each real episode is also
 * imagined from its own start with its own noise (the pairs), the M further starts are only reset
 * and imagined; the world model's score of an imagined episode is the prediction.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RobotDescription } from '../core/robotDescription.ts';
import type { Episode, Split } from '../core/types.ts';
import type { PpiEvaluationUnit } from '../eval/ppiEvaluation.ts';
import type { PpiRow } from '../eval/ppiTable.ts';
import type { NoiseSpec } from '../policy/rolloutNoise.ts';
import type { VlaPolicy } from '../policy/vlaPolicy.ts';
import { imagineEvaluationScores } from '../rl/evaluationImagination.ts';
import { planEpisodes, type PlannedEpisode } from '../tasks/episodePlan.ts';
import type { TaskSelector } from '../tasks/selectors.ts';
import { SCORE_RULES, type ScoreRule } from '../worldmodel/imagine.ts';
import { featuresOfModel } from '../worldmodel/perceptionWorldModel.ts';
import type { WorldModel } from '../worldmodel/worldModel.ts';
import { loadWorldModel } from '../worldmodel/worldModelFiles.ts';
import { choiceFlag, intFlag, numberFlag, UsageError } from './args.ts';

export const PPI_FLAGS = {
  'world-model': { type: 'string' },
  real: { type: 'string' },
  imagined: { type: 'string' },
  horizon: { type: 'string' },
  score: { type: 'string' },
  'terminate-at': { type: 'string' },
} as const;

export const PPI_HELP = `
  with a world model (prediction-powered inference: real episodes plus imagined ones):
  --world-model DIR     a world model of this policy's perception (a folder with model.json, or a \`wmrl train\` run)
  --real N              real episodes per family and split (default 20; the same as --episodes)
  --imagined M          further starts per family and split, reset and imagined only (default 200)
  --horizon H           imagined control steps (default: each family's episode horizon)
  --score R             final | max | progress: how the world model scores an imagined episode (default max)
  --terminate-at P      end an imagined episode once its predicted success probability reaches P`;

/** Further starts per cell at most: their seeds (10 000 apart per family) must not run into the next family's. */
const MAX_IMAGINED = 10_000;

export interface PpiChoice {
  worldModel: string;
  real: number;
  imagined: number;
  horizon?: number;
  score: ScoreRule;
  terminateAt?: number;
}

type PpiValues = { [K in keyof typeof PPI_FLAGS]?: string } & { episodes?: string };

/** The settings of a PPI evaluation, or undefined without --world-model (its other flags are then refused). */
export function ppiChoice(values: PpiValues): PpiChoice | undefined {
  const worldModel = values['world-model'];
  if (!worldModel) {
    const stray = (['real', 'imagined', 'horizon', 'score', 'terminate-at'] as const).filter((k) => values[k]);
    if (stray.length > 0)
      throw new UsageError(`--${stray.join(', --')} go${stray.length === 1 ? 'es' : ''} with --world-model`);
    return undefined;
  }
  if (values.real !== undefined && values.episodes !== undefined)
    throw new UsageError('give --real or --episodes (the same count), not both');
  const imagined = intFlag(values.imagined, 'imagined', 200, 2);
  if (imagined > MAX_IMAGINED) throw new UsageError(`--imagined must be at most ${MAX_IMAGINED}, got ${imagined}`);
  return {
    worldModel: modelFolder(worldModel),
    real: intFlag(values.real ?? values.episodes, values.real !== undefined ? 'real' : 'episodes', 20, 2),
    imagined,
    ...(values.horizon !== undefined ? { horizon: intFlag(values.horizon, 'horizon', 0, 1) } : {}),
    score: choiceFlag(values.score, 'score', SCORE_RULES, 'max'),
    ...(values['terminate-at'] !== undefined
      ? { terminateAt: numberFlag(values['terminate-at'], 'terminate-at', 1, 1e-6, 1) }
      : {}),
  };
}

/** A world-model checkpoint folder, or the one a `wmrl train` run saved in its checkpoint. */
function modelFolder(dir: string): string {
  if (existsSync(join(dir, 'model.json'))) return dir;
  const inRun = join(dir, 'checkpoint', 'worldmodel');
  if (existsSync(join(inRun, 'model.json'))) return inRun;
  throw new UsageError(
    `--world-model ${dir}: no world model there (no model.json, nor checkpoint/worldmodel/model.json)`,
  );
}

/** The further starts: per split and selector, seeds from `seed` + 100 000, apart from the real episodes' seeds. */
export function imaginedPlan(
  splits: readonly Split[],
  selectors: TaskSelector[],
  perCell: number,
  seed: number,
): PlannedEpisode[] {
  return splits.flatMap((s, si) =>
    selectors.flatMap((sel, fi) => planEpisodes([sel], s, perCell, seed + 100_000 + 50_000 * si + 10_000 * fi)),
  );
}

export interface Predictor {
  model: WorldModel;
  predict(starts: Episode[]): Float32Array;
}

/** The world model's score of each start's imagined episode (mean actions, or `noise` as the real episodes sample). */
export async function worldModelPredictor(
  choice: PpiChoice,
  policy: VlaPolicy,
  robot: RobotDescription,
  noise: NoiseSpec | null,
): Promise<Predictor> {
  const model = await loadWorldModel(choice.worldModel);
  try {
    const endEffector = await featuresOfModel(model, policy, robot);
    const imagine = {
      rule: choice.score,
      ...(choice.terminateAt !== undefined ? { terminateAt: choice.terminateAt } : {}),
    };
    return {
      model,
      predict: (starts) =>
        imagineEvaluationScores(policy, model, starts, {
          noise,
          imagine,
          ...(choice.horizon !== undefined ? { horizon: choice.horizon } : {}),
          ...(endEffector ? { endEffector } : {}),
        }),
    };
  } catch (err) {
    model.dispose();
    throw err;
  }
}

/** ppi.json (settings and rows) and predictions.jsonl (one line per real or imagined episode). */
export function writePpiResults(
  out: string,
  settings: Record<string, unknown>,
  rows: PpiRow[],
  units: PpiEvaluationUnit[],
): void {
  writeFileSync(join(out, 'ppi.json'), JSON.stringify({ settings, rows }, null, 2) + '\n');
  writeFileSync(
    join(out, 'predictions.jsonl'),
    units.map((u) => JSON.stringify({ ...u, paired: u.outcome !== null })).join('\n') + '\n',
  );
}

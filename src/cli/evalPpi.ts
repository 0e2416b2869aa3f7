/**
 * `wmrl eval --world-model`: the success rate from N real episodes per family and split plus M
 * imagined ones (prediction-powered inference, src/eval/ppiTable.ts). Each real episode is also
 * imagined from its own start with its own noise (the pairs), the M further starts are only reset
 * and imagined; the world model's score of an imagined episode is the prediction. With
 * `--start-head DATA` instead, the prediction is how often the policy succeeded from starts like it
 * in DATA, labelled episodes of the same policy (src/eval/startHeads.ts).
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RobotDescription } from '../core/robotDescription.ts';
import type { Episode, Split } from '../core/types.ts';
import type { PpiEvaluationUnit } from '../eval/ppiEvaluation.ts';
import type { PpiRow } from '../eval/ppiTable.ts';
import type { NoiseSpec } from '../policy/rolloutNoise.ts';
import type { VlaPolicy } from '../policy/vlaPolicy.ts';
import { imagineEvaluationScores } from '../rl/estimates/evaluationImagination.ts';
import { planEpisodes, type PlannedEpisode } from '../tasks/episodePlan.ts';
import type { TaskSelector } from '../tasks/selectors.ts';
import { SCORE_RULES, type ScoreRuleName } from '../worldmodel/scoreRules.ts';
import { featuresOfModel } from '../rl/corrections/worldModelFeatures.ts';
import { loadWorldModel } from '../worldmodel/worldModelFiles.ts';
import { StartHeads } from '../eval/startHeads.ts';
import { choiceFlag, intFlag, UsageError } from './args.ts';
import { readEpisodes } from './common.ts';

export const PPI_FLAGS = {
  'world-model': { type: 'string' },
  'start-head': { type: 'string', multiple: true },
  real: { type: 'string' },
  imagined: { type: 'string' },
  horizon: { type: 'string' },
  score: { type: 'string' },
} as const;

export const PPI_HELP = `
  with a predictor (prediction-powered inference: real episodes plus predicted ones):
  --world-model DIR     a world model of this policy's perception (a folder with model.json, or a \`wmrl train\` run)
  --start-head DATA     instead of a world model: predict each start by the outcomes of this policy's episodes
                        from similar starts in DATA (episode folders, repeatable: an earlier \`wmrl eval --out\`,
                        never the episodes being evaluated)
  --real N              real episodes per family and split (default 20; the same as --episodes)
  --imagined M          further starts per family and split, reset and imagined only (default 200)
  --horizon H           imagined control steps (default: each family's episode horizon)
  --score R             final | max | progress: how the world model scores an imagined episode (default max)`;

/** Further starts per cell at most: their seeds (10 000 apart per family) must not run into the next family's. */
const MAX_IMAGINED = 10_000;

export interface PpiChoice {
  /** The predictor: a world model's score of the imagined episode, or start heads fitted on labelled episodes. */
  predictor: 'world-model' | 'start-head';
  /** The world model's folder (predictor 'world-model'). */
  worldModel?: string;
  /** The labelled episode folders (predictor 'start-head'). */
  startHead?: string[];
  real: number;
  imagined: number;
  horizon?: number;
  score: ScoreRuleName;
}

type PpiValues = { [K in keyof typeof PPI_FLAGS]?: K extends 'start-head' ? string[] : string } & {
  episodes?: string;
};

/** The settings of a PPI evaluation, or undefined without a predictor (its other flags are then refused). */
export function ppiChoice(values: PpiValues): PpiChoice | undefined {
  const worldModel = values['world-model'];
  const startHead = values['start-head'];
  const imagination = (['horizon', 'score'] as const).filter((k) => values[k] !== undefined);
  if (!worldModel && !startHead) {
    const stray = (['real', 'imagined', ...imagination] as const).filter((k) => values[k]);
    if (stray.length > 0)
      throw new UsageError(
        `--${stray.join(', --')} go${stray.length === 1 ? 'es' : ''} with --world-model or --start-head`,
      );
    return undefined;
  }
  if (worldModel && startHead)
    throw new UsageError('give --world-model or --start-head (the prediction comes from one of them), not both');
  if (startHead && imagination.length > 0)
    throw new UsageError(`--${imagination.join(', --')}: how to imagine, which --start-head does not do`);
  if (values.real !== undefined && values.episodes !== undefined)
    throw new UsageError('give --real or --episodes (the same count), not both');
  const imagined = intFlag(values.imagined, 'imagined', 200, 2);
  if (imagined > MAX_IMAGINED) throw new UsageError(`--imagined must be at most ${MAX_IMAGINED}, got ${imagined}`);
  return {
    ...(worldModel
      ? { predictor: 'world-model' as const, worldModel: modelFolder(worldModel) }
      : { predictor: 'start-head' as const, startHead: startHead! }),
    real: intFlag(values.real ?? values.episodes, values.real !== undefined ? 'real' : 'episodes', 20, 2),
    imagined,
    ...(values.horizon !== undefined ? { horizon: intFlag(values.horizon, 'horizon', 0, 1) } : {}),
    score: choiceFlag(values.score, 'score', SCORE_RULES, 'max'),
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
  /** What the predictions come from, for the printed table. */
  source: string;
  predict(starts: Episode[]): Float32Array;
  dispose(): void;
}

/** The predictor the choice names. */
export async function ppiPredictor(
  choice: PpiChoice,
  policy: VlaPolicy,
  robot: RobotDescription,
  noise: NoiseSpec | null,
  plan: PlannedEpisode[],
): Promise<Predictor> {
  return choice.predictor === 'start-head'
    ? startHeadPredictor(choice.startHead!, policy, plan)
    : worldModelPredictor(choice, policy, robot, noise);
}

/**
 * Start heads fitted on the labelled episodes. Refused when they hold an episode the evaluation
 * will run (the same seed and instruction): a prediction fitted on its own outcome is no honest
 * measure of the predictor's error.
 */
async function startHeadPredictor(dirs: string[], policy: VlaPolicy, plan: PlannedEpisode[]): Promise<Predictor> {
  const labelled = await readEpisodes(dirs);
  const planned = new Set(plan.map((p) => `${p.seed}\u0000${p.task.instruction}`));
  const own = labelled.find((e) => planned.has(`${e.seed}\u0000${e.task.instruction}`));
  if (own)
    throw new UsageError(
      `--start-head ${dirs.join(', ')} holds an episode this evaluation runs (seed ${own.seed}, ` +
        `'${own.task.instruction}'): label other episodes, or evaluate with another --seed`,
    );
  const heads = StartHeads.fit(policy, labelled);
  const missing = [...new Set(plan.map((p) => p.task.family))].filter((f) => !heads.heads.has(f));
  if (missing.length > 0)
    throw new UsageError(`--start-head ${dirs.join(', ')} holds no ${missing.join(' or ')} episodes to predict with`);
  return {
    source: `start heads on ${labelled.length} labelled episodes (${dirs.join(', ')})`,
    predict: (starts) => heads.predict(policy, starts),
    dispose: () => {},
  };
}

/** The world model's score of each start's imagined episode (mean actions, or `noise` as the real episodes sample). */
async function worldModelPredictor(
  choice: PpiChoice,
  policy: VlaPolicy,
  robot: RobotDescription,
  noise: NoiseSpec | null,
): Promise<Predictor> {
  const model = await loadWorldModel(choice.worldModel!);
  try {
    const endEffector = await featuresOfModel(model, policy, robot);
    const imagine = { rule: choice.score };
    return {
      source: `the world model ${choice.worldModel}`,
      dispose: () => model.dispose(),
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

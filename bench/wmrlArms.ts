/**
 * The WMRL benchmark's arms (bench/wmrlBench.ts), one record each: the `wmrl train` flags it adds to its family's
 * preset (bench/benchFamilies.ts), whether it runs the long arms' steps, and its name and colour in the plot. The
 * table holds the headline and ablation arms; a probe is an overlay file in bench/experiments/ (see `experiment`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { z } from 'zod';

export interface Arm {
  /** The `wmrl train` flags it adds to its family's preset. */
  flags: string[];
  /** Runs the long arms' step count (28) instead of the short one (12): the arms that spend little robot time. */
  long?: boolean;
  /** Takes one part away from the family's WMRL arm (drawn in a plot of its own). */
  ablation?: boolean;
  /** Runs only when named (--arms): too slow for the full benchmark's budget. */
  onDemand?: boolean;
  /** Its name in the plot's legend. */
  label: string;
  /** Its colour in the plot (default: the next spare one). */
  colour?: string;
  /**
   * The family's world-model-only data folders its world model learns from besides the demonstrations the clone
   * learned from (default: none; `mixed`, the noisy experts). Any other choice trains a world model of its own. The
   * benchmark charges their robot time once, spread over the runs that share the world model.
   */
  worldModelData?: string[];
  /**
   * The share of its executed robot time the benchmark counts (default 1): below 1 only for a ceiling arm whose
   * stand-in for imagination is executed in the simulator and so costs no robot time.
   */
  robotTimeCounted?: number;
}

/** The baseline's preset: 8 groups a step, every rollout executed (the quickstart imagines 31 of 32). */
export const REAL_ONLY = ['--config', 'configs/train/real-only.yaml'];

/** In the order the benchmark lists them. */
const ARMS: Record<string, Arm> = {
  real: { flags: REAL_ONLY, label: 'real-only GRPO (G = 8)', colour: '#d62728' },
  // The preset, every robot second charged: its world model learns from the demonstrations the clone learned from,
  // then from the clone's own warm-up episodes and the anchors, all counted as training robot time.
  wmrl: {
    flags: [],
    long: true,
    worldModelData: [],
    label: 'WMRL (world model from the demonstrations and its own episodes, all charged)',
    colour: '#1f77b4',
  },
  // A world model trained once on the demonstrations and noisy experts collected for it, shared by every run of the
  // benchmark, no warm-up: its data charged once, spread over the runs that share it.
  'shared-wm': {
    flags: ['--worldModel.warmupEpisodes=0'],
    long: true,
    worldModelData: ['mixed'],
    label: 'WMRL, one world model of the demonstrations and noisy experts, shared',
    colour: '#17becf',
  },
  // GRPO on the environment with one group a step: what WMRL's anchor groups alone would teach.
  'anchors-only': {
    flags: [...REAL_ONLY, '--groups=1'],
    long: true,
    label: 'real-only GRPO (G = 1)',
    colour: '#8c564b',
  },
  'no-debias': { flags: ['--no-debias'], ablation: true, label: 'no debiasing' },
  // The paper's map: flat where pool-adjacent-violators pooled, so it ties a group's rollouts there.
  'paper-map': { flags: ['--isotonic.orderSlope=0'], ablation: true, label: "the paper's debiasing map" },
  'no-anchor-weight': { flags: ['--denoise=ensemble'], ablation: true, label: 'no anchor weight' },
  'no-ensemble-weight': { flags: ['--denoise=anchor'], ablation: true, label: 'no ensemble weights' },
  'no-refit': { flags: ['--no-refit'], ablation: true, label: 'no refits' },
  'wm-only': { flags: ['--mode', 'wm-only'], ablation: true, label: 'world model only (no anchors)' },
  // A ceiling, not a method: every one of the 32 groups a step executed in the simulator (the same PPO as WMRL's),
  // one group's robot time counted: how soon WMRL could reach the target if imagination ranked as the robot does.
  'perfect-wm': {
    flags: [...REAL_ONLY, '--groups=32'],
    onDemand: true,
    robotTimeCounted: 1 / 32,
    label: 'ceiling: WMRL with a perfect world model',
    colour: '#637939',
  },
};

/** The arms of the full benchmark, in order. */
export const ALL_ARMS = Object.keys(ARMS).filter((a) => !ARMS[a]!.onDemand);
/** Arms of the table that run only when named. */
export const ON_DEMAND_ARMS = Object.keys(ARMS).filter((a) => ARMS[a]!.onDemand);

/** Where the probes live: one overlay file each, `<name>.yaml`. */
export const EXPERIMENTS_DIR = fileURLToPath(new URL('./experiments/', import.meta.url));

/**
 * A probe as a file: the arm it changes and the `wmrl train` keys it sets on top of that arm (any key of the schema,
 * nested as in a config file), with what it asks in its `label`.
 */
const experimentSchema = z
  .object({
    label: z.string().min(1).describe("its name in the plot's legend: what it changes"),
    base: z.string().default('wmrl').describe('the arm of the table it changes'),
    long: z.boolean().optional().describe("runs the long arms' steps (default: its base arm's)"),
    worldModelData: z.array(z.string()).optional().describe("its world model's own data (default: its base arm's)"),
    colour: z.string().optional(),
    train: z.record(z.string(), z.unknown()).describe('the `wmrl train` keys it sets, as in a config file'),
  })
  .strict();

/** The probes in bench/experiments/, by name. */
export function experimentNames(dir = EXPERIMENTS_DIR): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => basename(f, '.yaml'))
    .sort();
}

/** The arm an experiment file describes: its base arm's record with the file's keys as flags after its own. */
export function experiment(name: string, dir = EXPERIMENTS_DIR): Arm {
  const file = join(dir, `${name}.yaml`);
  const parsed = experimentSchema.safeParse(parse(readFileSync(file, 'utf8')));
  if (!parsed.success) throw new Error(`${file}: ${z.prettifyError(parsed.error)}`);
  const e = parsed.data;
  const base = ARMS[e.base];
  if (!base) throw new Error(`${file}: base '${e.base}' is no arm of the table (${Object.keys(ARMS).join(', ')})`);
  const { colour: _baseColour, ablation: _ablation, ...inherited } = base;
  return {
    ...inherited,
    flags: [...base.flags, ...dottedFlags(e.train)],
    label: e.label,
    ...(e.long !== undefined ? { long: e.long } : {}),
    ...(e.worldModelData !== undefined ? { worldModelData: e.worldModelData } : {}),
    ...(e.colour !== undefined ? { colour: e.colour } : {}),
  };
}

/** `{ worldModel: { refitEvery: 1 } }` → `['--worldModel.refitEvery=1']` (arrays and scalars as their JSON text). */
export function dottedFlags(values: Record<string, unknown>, prefix = ''): string[] {
  return Object.entries(values).flatMap(([key, value]) =>
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? dottedFlags(value as Record<string, unknown>, `${prefix}${key}.`)
      : [`--${prefix}${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`],
  );
}

/** The experiment files' arms read so far (a benchmark asks an arm's flags, label and steps many times). */
const experimentArms = new Map<string, Arm>();

/** The record of an arm of the table or of an experiment file. */
export function armOf(arm: string): Arm {
  const own = ARMS[arm] ?? experimentArms.get(arm);
  if (own) return own;
  if (experimentNames().includes(arm)) {
    const read = experiment(arm);
    experimentArms.set(arm, read);
    return read;
  }
  throw new Error(
    `no benchmark arm '${arm}' (arms: ${Object.keys(ARMS).join(', ')}; experiments: ${experimentNames().join(', ')})`,
  );
}

/** The flags `arm` adds to its family's preset. */
export const armFlags = (arm: string): string[] => armOf(arm).flags;
/** The arm's name in the plot's legend. */
export const armLabel = (arm: string): string => armOf(arm).label;
/** The share of the arm's executed robot time the benchmark counts (a ceiling arm's is below 1). */
export const armRobotTimeCounted = (arm: string): number => armOf(arm).robotTimeCounted ?? 1;
/** Whether the arm takes one part away from the family's WMRL arm (drawn apart from the method arms). */
export const armIsAblation = (arm: string): boolean => armOf(arm).ablation === true;
/** Whether the arm runs the long arms' steps. */
export const armIsLong = (arm: string): boolean => armOf(arm).long === true;
/** The arm's own plot colour, if it has one. */
export const armColour = (arm: string): string | undefined => armOf(arm).colour;

/** The family's world-model-only data folders `arm`'s world model learns from besides the clone's demonstrations. */
export const armWorldModelData = (arm: string): string[] => armOf(arm).worldModelData ?? [];

/**
 * The cache folder name of the world model an arm imagines with, from its resolved world-model settings: `worldmodel`,
 * then `-keyframes` where its state holds them, and its own data: a model of one layout or data is never reused by a
 * run of another.
 */
export function worldModelFolder(worldModel: { keyframes: boolean }, data: string[]): string {
  const dataPart = data.length === 0 ? '-demos-only' : `-data-${data.join('+')}`;
  return `worldmodel${worldModel.keyframes ? '-keyframes' : ''}${dataPart}`;
}

/**
 * `wmrl success train|eval`: fit a success detector on labelled episodes (camera frames, joint
 * positions and the instruction; never the success flags or the simulator's state), and measure
 * one on held-out episodes: AUROC, calibration and the confusion at its threshold.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeConfigSchema, resolveConfig } from '../core/config.ts';
import { RunLog } from '../core/runLog.ts';
import type { Episode } from '../core/types.ts';
import { POLICY_KERNELS } from '../policy/policyConfig.ts';
import { taskFamily } from '../tasks/families.ts';
import { detectorConfigSchema } from '../success/detectorConfig.ts';
import { loadDetector, saveDetector } from '../success/detectorFiles.ts';
import { detectorFigures, type DetectorFigures } from '../success/detectorMetrics.ts';
import { figureLines } from '../success/detectorReport.ts';
import { datasetOutcomeLabels } from '../success/datasetLabels.ts';
import { labelledEpisodes, type OperatorOutcomes } from '../success/labelledEpisodes.ts';
import { trainDetector } from '../success/trainDetector.ts';
import { numberFlag, parseFlags, UsageError } from './args.ts';
import { configOverrides, readEpisodes, useBackend } from './common.ts';
import { detectorDir } from './detectorOutcomes.ts';

const TRAIN_HELP = `usage: wmrl success train --data DIR --out DIR [--task F] [--config FILE]... [--key.path=value]...

  --data DIR     labelled episodes (repeat): demonstrations, noisy or policy rollouts, operator-labelled
                 episodes. The label is an operator's label given with wmrl label DIR, else the episode's
                 recorded outcome (the environment's or an operator's); a detector's own decisions are never
                 labels, and an episode recorded without success information is unlabelled until labelled
  --task F       only episodes of this task family (e.g. reach)
  --out DIR      output folder: detector/ (checkpoint), resolved config, metrics JSONL, validation.json
  --config FILE  YAML preset(s)
  --seed S, --backend B

config keys:
`;

const EVAL_HELP = `usage: wmrl success eval --detector DIR --data DIR [--task F] [--threshold P] [--json FILE]

  --detector DIR  a detector (wmrl success train's --out, or its detector/ folder)
  --data DIR      labelled episodes to measure on (repeat; wmrl label's labels count); those the detector
                  was fitted on are left out
  --task F        only episodes of this task family
  --threshold P   the decision threshold for the confusion (default: the detector's own)
  --json FILE     also write the figures as JSON
  --backend B
`;

export const command = {
  summary: 'train (success train) or evaluate (success eval) a learned success detector',
  async run(argv: string[]): Promise<number> {
    const [sub, ...rest] = argv;
    if (sub === 'train') return train(rest);
    if (sub === 'eval') return evaluate(rest);
    console.log('usage: wmrl success train|eval [options]   (wmrl success train --help)');
    return sub === undefined || sub === '--help' ? 0 : 2;
  },
};

async function train(argv: string[]): Promise<number> {
  const flags = ['data', 'out', 'task', 'config', 'seed', 'backend', 'help'];
  const { overrides, rest } = configOverrides(argv, Object.keys(detectorConfigSchema.shape), flags);
  const { values } = parseFlags(rest, {
    data: { type: 'string', multiple: true },
    out: { type: 'string' },
    task: { type: 'string' },
    config: { type: 'string', multiple: true },
    seed: { type: 'string' },
    backend: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    console.log(
      TRAIN_HELP +
        describeConfigSchema(detectorConfigSchema)
          .map((l) => `  ${l}`)
          .join('\n'),
    );
    return 0;
  }
  if (!values.data?.length || !values.out) throw new UsageError(`--data and --out are required\n\n${TRAIN_HELP}`);
  const shorthand: Record<string, string> = {};
  if (values.seed) shorthand.seed = values.seed;
  if (values.backend) shorthand.backend = values.backend;
  const config = resolveConfig(detectorConfigSchema, {
    files: values.config ?? [],
    overrides: { ...overrides, ...shorthand },
  });
  const dir = join(values.out, 'detector');
  if (existsSync(dir) && !existsSync(join(dir, 'model.json')))
    throw new Error(`${dir} exists and is not a detector checkpoint; refusing to overwrite it`);
  const backend = await useBackend(config.backend, POLICY_KERNELS);
  const { episodes, labels } = await readFamily(values.data, values.task);
  const log = new RunLog(values.out, 'success-train', {
    command: 'success train',
    data: values.data,
    task: values.task ?? null,
    backend,
    config,
  });
  const labelled = labelledEpisodes(episodes, labels);
  const byOperator = labelled.filter((l) => l.source === 'operator').length;
  console.error(
    `training a success detector on ${labelled.length} labelled episodes ` +
      `(${labelled.filter((l) => l.success).length} successes` +
      `${byOperator ? `, ${byOperator} labelled by an operator` : ''}), backend ${backend}`,
  );
  const trained = await trainDetector(episodes, config, {
    labels,
    onEpoch: (m) => {
      log.log({ kind: 'epoch', ...m });
      console.error(
        `epoch ${m.epoch + 1}: train loss ${m.trainLoss.toFixed(4)}` +
          (m.validationLoss === null ? '' : ` validation loss ${m.validationLoss.toFixed(4)}`) +
          (m.validationAuroc === null ? '' : ` AUROC ${m.validationAuroc.toFixed(3)}`) +
          ` (${m.seconds.toFixed(0)} s)`,
      );
    },
  });
  try {
    await saveDetector(trained.detector, dir);
    const summary = {
      trainEpisodes: trained.trainEpisodes,
      validationEpisodes: trained.validationEpisodes,
      validation: trained.validation,
      validationIds: trained.validationIds,
    };
    log.log({ kind: 'validation', ...summary, validationIds: undefined });
    writeFileSync(join(values.out, 'validation.json'), JSON.stringify(summary, null, 2) + '\n');
    console.log(`detector saved to ${dir} (${trained.trainEpisodes} training episodes)`);
    if (trained.validation) for (const l of figureLines(trained.validation, 'held-out episodes')) console.log(l);
    return 0;
  } finally {
    trained.detector.dispose();
  }
}

async function evaluate(argv: string[]): Promise<number> {
  const { values } = parseFlags(argv, {
    detector: { type: 'string' },
    data: { type: 'string', multiple: true },
    task: { type: 'string' },
    threshold: { type: 'string' },
    json: { type: 'string' },
    backend: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    console.log(EVAL_HELP);
    return 0;
  }
  if (!values.detector || !values.data?.length)
    throw new UsageError(`--detector and --data are required\n\n${EVAL_HELP}`);
  await useBackend(values.backend ?? 'auto', POLICY_KERNELS);
  const detector = await loadDetector(detectorDir(values.detector));
  try {
    const threshold = numberFlag(values.threshold, 'threshold', detector.meta.threshold, 0, 1);
    const trainedOn = new Set(detector.meta.trainedOn);
    const { episodes, labels } = await readFamily(values.data, values.task);
    const all = labelledEpisodes(episodes, labels);
    const held = all.filter((l) => !trainedOn.has(l.episode.id));
    if (held.length === 0)
      throw new Error(`every labelled episode in ${values.data.join(', ')} is one the detector was fitted on`);
    const scores = detector.scoreEpisodes(held.map((l) => l.episode));
    const figures = detectorFigures(
      scores,
      held.map((l) => l.success),
      threshold,
    );
    const left = all.length - held.length;
    for (const l of figureLines(figures, `held-out episodes${left ? ` (${left} it was fitted on left out)` : ''}`))
      console.log(l);
    // Per split where both are present: the test split's colours and paraphrases may be words it never saw.
    const bySplit: Record<string, DetectorFigures> = {};
    const splits = [...new Set(held.map((l) => l.episode.task.split))].sort();
    if (splits.length > 1)
      for (const split of splits) {
        const idx = held.flatMap((l, i) => (l.episode.task.split === split ? [i] : []));
        bySplit[split] = detectorFigures(
          idx.map((i) => scores[i]!),
          idx.map((i) => held[i]!.success),
          threshold,
        );
        for (const l of figureLines(bySplit[split], `  ${split} split`).slice(0, 3)) console.log(l);
      }
    if (values.json) writeFileSync(values.json, JSON.stringify({ ...figures, leftOut: left, bySplit }, null, 2) + '\n');
    return 0;
  } finally {
    detector.dispose();
  }
}

/** The datasets' episodes (of one task family when given) and the labels given on them with wmrl label. */
async function readFamily(
  dirs: string[],
  task: string | undefined,
): Promise<{ episodes: Episode[]; labels: OperatorOutcomes }> {
  const family = task === undefined ? undefined : taskFamily(task);
  return { episodes: await readEpisodes(dirs, family ? { family } : {}), labels: await datasetOutcomeLabels(dirs) };
}

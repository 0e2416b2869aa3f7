/** `wmrl pretrain`: behaviour-clone the VLA policy from expert demonstrations. */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeConfigSchema, resolveConfig } from '../core/config.ts';
import { robotRef } from '../core/robotDescription.ts';
import { RunLog } from '../core/runLog.ts';
import { PatchEncoder } from '../vision/patchCodec.ts';
import { loadWorldModel } from '../worldmodel/worldModelFiles.ts';
import { POLICY_KERNELS, policyConfigSchema } from '../policy/policyConfig.ts';
import { demonstrationExclusion, pretrainPolicy } from '../policy/pretrain.ts';
import { datasetOutcomeLabels } from '../success/datasetLabels.ts';
import { savePolicy } from '../policy/policyFiles.ts';
import { parseFlags, UsageError } from './args.ts';
import { configOverrides, datasetRobot, readEpisodes, useBackend } from './common.ts';
import { Progress } from './progress.ts';

const HELP =
  `usage: wmrl pretrain --data DIR --out DIR [--config FILE]... ` +
  `[--encoder WM_DIR] [--backend B] [--key.path=value]...

  --data DIR      dataset folder(s) with expert demonstrations (train split is used)
  --out DIR       output: policy/ (checkpoint), resolved config, metrics JSONL, report.json
  --config FILE   preset(s), e.g. configs/policy/tiny.yaml | small.yaml | base.yaml
  --encoder DIR   a video world model whose encoder the policy shares (else one is trained here)
  --backend B     auto | tensorflow-gpu | tensorflow | wasm | cpu

config keys:
`;

export const command = {
  summary: 'behaviour-clone the VLA policy from expert demonstrations',
  async run(argv: string[]): Promise<number> {
    const flags = ['data', 'out', 'config', 'encoder', 'backend', 'seed', 'help'];
    const { overrides, rest } = configOverrides(argv, Object.keys(policyConfigSchema.shape), flags);
    const { values } = parseFlags(rest, {
      data: { type: 'string', multiple: true },
      out: { type: 'string' },
      config: { type: 'string', multiple: true },
      encoder: { type: 'string' },
      backend: { type: 'string' },
      seed: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    });
    if (values.help) {
      console.log(
        HELP +
          describeConfigSchema(policyConfigSchema)
            .map((l) => `  ${l}`)
            .join('\n'),
      );
      return 0;
    }
    if (!values.data?.length || !values.out) throw new UsageError(`--data and --out are required\n\n${HELP}`);
    const shorthand: Record<string, string> = {};
    if (values.backend) shorthand.backend = values.backend;
    if (values.seed) shorthand.seed = values.seed;
    let config = resolveConfig(policyConfigSchema, {
      files: values.config ?? [],
      overrides: { ...shorthand, ...overrides },
    });
    const policyDir = join(values.out, 'policy');
    if (existsSync(policyDir) && !existsSync(join(policyDir, 'model.json')))
      throw new Error(`${policyDir} exists and is not a policy checkpoint; refusing to overwrite it`);
    const backend = await useBackend(config.backend, POLICY_KERNELS);
    let encoder: PatchEncoder | undefined;
    if (values.encoder) {
      const dir = existsSync(join(values.encoder, 'model', 'model.json'))
        ? join(values.encoder, 'model')
        : values.encoder;
      const wm = await loadWorldModel(dir);
      try {
        if (!wm.encoder)
          throw new Error(`${values.encoder} is a '${wm.kind}' world model; --encoder needs a video world model`);
        const v = wm.config.video;
        config = {
          ...config,
          encoder: {
            ...config.encoder,
            imageSize: v.imageSize,
            patch: v.patch,
            patchDim: v.patchDim,
            latent: v.latent,
            keypoints: v.keypoints,
            camera: v.camera,
          },
        };
        encoder = new PatchEncoder(wm.encoder.config);
        encoder.variables().forEach((variable, i) => variable.assign(wm.encoder!.variables()[i]!));
      } finally {
        wm.dispose();
      }
    }
    // A person's labels on the data (wmrl label DIR) are its outcomes: a labelled failure is not cloned.
    const labels = await datasetOutcomeLabels(values.data);
    const episodes = (await readEpisodes(values.data)).map((e) => {
      const label = labels.get(e.id);
      if (label === undefined) return e;
      const { successUnknown: _, ...known } = e;
      return { ...known, success: label };
    });
    const robot = await datasetRobot(values.data);
    const log = new RunLog(values.out, 'pretrain', {
      command: 'pretrain',
      data: values.data,
      robot: robotRef(robot),
      encoder: values.encoder ?? null,
      backend,
      config,
    });
    let progress: Progress | undefined;
    let stage = '';
    const { policy, report } = await pretrainPolicy(episodes, config, {
      encoder,
      robot,
      hooks: {
        onStage: (s) => (stage = s),
        onStep: (step, steps, epoch) => {
          if (step === 1) progress = new Progress(`${stage} epoch ${epoch + 1}`, steps);
          progress!.update(step);
        },
        // The best policy so far is saved after every improving epoch: an interrupted run keeps it.
        onBest: (p) => savePolicy(p, policyDir),
        onEpoch: (s, m) => {
          progress?.stop();
          log.log({ stage: s, ...m });
          // Demonstrations without the simulator's object state (a robot's, an imported dataset's) have no
          // positions to check the auxiliary heads against: those figures are left out, not printed as NaN.
          const aux = Number.isFinite(m.validationAuxRmseCm as number)
            ? `, object/goal position RMSE ${(m.validationAuxRmseCm as number).toFixed(1)} cm, ` +
              `in the image ${(m.validationImageRmsePx as number).toFixed(1)} px`
            : '';
          if (s === 'bc')
            console.error(
              `bc epoch ${(m.epoch as number) + 1}: train NLL ${(m.trainNll as number).toFixed(3)}, ` +
                `validation NLL ${(m.validationNll as number).toFixed(3)}, ` +
                `action MSE ${(m.validationMse as number).toFixed(4)}${aux}`,
            );
          else
            console.error(
              `encoder epoch ${(m.epoch as number) + 1}: reconstruction ${(m.validationLoss as number).toFixed(4)}`,
            );
        },
      },
    });
    try {
      console.error(
        `policy '${config.size}': ${policy.parameterCount.toLocaleString()} parameters` +
          `${
            policy.encoder
              ? ` (+ ${policy.encoderParameterCount.toLocaleString()} in the patch encoder, ` +
                `${config.encoder.trainable ? 'trained end to end' : 'frozen'})`
              : ''
          }`,
      );
      const unknown = episodes.filter((e) => e.successUnknown && demonstrationExclusion(e, config) === undefined);
      if (unknown.length > 0)
        console.error(
          `${unknown.length} demonstrations record no success and are cloned as the demonstrations they were ` +
            `recorded as; mark any failures among them with wmrl label ${values.data.join(' ')}`,
        );
      if (report.episodesSkipped > 0)
        console.error(`not cloned: ${report.episodesSkipped} episodes: ${report.skippedBecause.join('; ')}`);
      for (const { family, color } of report.missingColours)
        console.error(
          `warning: '${color}', the held-out colour of ${family}, is in no training instruction, so the policy ` +
            `reads it as <unk> and cannot find the ${color} object on the test split; add demonstrations of a ` +
            `family where ${color} is a train colour (wmrl tasks lists the split)`,
        );
      await savePolicy(policy, policyDir);
      writeFileSync(join(values.out, 'report.json'), JSON.stringify(report, null, 2) + '\n');
      log.log({
        stage: 'done',
        parameters: report.parameters,
        encoderParameters: report.encoderParameters,
        seconds: report.seconds,
      });
      const best = report.bc[report.bestEpoch];
      console.log(
        `policy saved to ${policyDir}: ${report.episodesUsed} demonstrations ` +
          `(${report.samples} samples with augmentation), best epoch ${report.bestEpoch + 1}, ` +
          `validation action MSE ${best?.validationMse.toFixed(4)}, ${report.seconds.toFixed(0)} s`,
      );
      return 0;
    } finally {
      policy.dispose();
    }
  },
};

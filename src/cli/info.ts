/** `wmrl info DIR`: what a dataset holds. */
import { EpisodeStore } from '../data/episodeStore.ts';
import { parseFlags, UsageError } from './args.ts';

export const command = {
  summary: 'summarise a dataset: episodes per task and split, success rate, steps, size',
  async run(argv: string[]): Promise<number> {
    const { values, positionals } = parseFlags(
      argv,
      { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      true,
    );
    if (values.help) {
      console.log('usage: wmrl info DIR [--json]');
      return 0;
    }
    const dir = positionals[0];
    if (!dir || positionals.length > 1) throw new UsageError('usage: wmrl info DIR [--json]');
    const store = await EpisodeStore.open(dir);
    const s = await store.summary({ onIssue: () => {} });
    if (values.json) {
      console.log(JSON.stringify(s, null, 2));
      return 0;
    }
    console.log(`dataset ${s.dir}  (robot ${s.robot}, id ${s.datasetId}, created ${s.createdAt})`);
    console.log(
      `${s.episodes} episodes, ${s.totalSteps} steps (${s.robotSeconds.toFixed(0)} robot-s), ` +
        `success ${(100 * s.successRate).toFixed(1)}%, ${s.aborted} aborted (never served for training)`,
    );
    console.log(
      `${s.chunks} chunk files${s.openChunks ? ` + ${s.openChunks} unfinished (.tmp)` : ''}` +
        `, ${(s.bytesOnDisk / 1e6).toFixed(2)} MB on disk`,
    );
    console.log('');
    console.log(
      `${'family'.padEnd(8)} ${'split'.padEnd(6)} ${'episodes'.padStart(8)} ` +
        `${'success'.padStart(8)} ${'steps'.padStart(8)}  steps to success (median / 95% / max)`,
    );
    for (const g of s.groups) {
      const toSuccess = g.successSteps
        ? `${g.successSteps.median} / ${g.successSteps.p95} / ${g.successSteps.max}`
        : '–';
      console.log(
        `${g.family.padEnd(8)} ${g.split.padEnd(6)} ${String(g.episodes).padStart(8)} ` +
          `${(100 * g.successRate).toFixed(1).padStart(7)}% ${String(g.steps).padStart(8)}  ${toSuccess}`,
      );
    }
    for (const issue of s.issues) console.log(`warning: ${issue.message}`);
    return 0;
  },
};

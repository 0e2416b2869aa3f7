/**
 * The trainer's side of operator labelling, as a process the browser test can kill: the run's
 * anchor episodes (stable ids, as a robot pool stores them) put to the operator through the
 * OperatorDesk with labelAnchorGroups, the very call `wmrl train` makes with `--outcome operator`.
 * Prints `LABEL <id> <verdict>` as each label arrives and one `RESULT` line at the end.
 */
import { EpisodeStore } from '../../src/data/episodeStore.ts';
import type { Episode } from '../../src/core/types.ts';
import type { AskOperator } from '../../src/operator/askOperator.ts';
import { OperatorDesk } from '../../src/operator/operatorDesk.ts';
import { runAnchorDir } from '../../src/rl/run/runTraining.ts';
import { labelAnchorGroups } from '../../src/rl/run/operatorOutcomes.ts';

const runDir = process.argv[2]!;
const episodes: Episode[] = [];
for await (const e of (await EpisodeStore.open(runAnchorDir(runDir))).episodes()) episodes.push(e);
const desk = await OperatorDesk.open({ runDir, pollMs: 100 });
const ask: AskOperator = async (episode, context) => {
  const verdict = await desk.ask(episode, context);
  console.log(`LABEL ${episode.id} ${verdict === 'skip' ? 'skip' : verdict.success ? 'success' : 'failure'}`);
  return verdict;
};
console.log('ASKING');
const out = await labelAnchorGroups(episodes, episodes.length, ask, { labelTimeout: 0, onTimeout: 'skip' }, 1);
const outcomes = out.episodes.map((e) => [e.id, e.success]);
console.log(`RESULT ${JSON.stringify({ kept: out.kept, outcomes, counts: desk.counts })}`);
await desk.close();

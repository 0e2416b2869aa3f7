/**
 * With detector outcomes, where a run keeps the environment's own record of its anchor episodes
 * (anchors/ holds the relabelled ones the trainer sees). An episode waiting for its spot check is
 * only here: the viewer shows its frames from this folder.
 */
import { join } from 'node:path';

export function envRecordDir(runDir: string): string {
  return join(runDir, 'anchors-env');
}

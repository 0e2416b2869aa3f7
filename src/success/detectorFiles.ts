/** Success-detector checkpoints: tfjs weights + manifest (config, vocabulary, normalisation, threshold). */
import { saveCheckpoint } from '../core/checkpoint.ts';
import { restoreModel } from '../core/restoreModel.ts';
import { detectorConfigSchema } from './detectorConfig.ts';
import { SuccessDetector, type DetectorMeta } from './successDetector.ts';

export const DETECTOR_FORMAT = 'wmrl-success-detector';
export const DETECTOR_FORMAT_VERSION = 1;

export async function saveDetector(detector: SuccessDetector, dir: string): Promise<void> {
  await saveCheckpoint(dir, {
    format: DETECTOR_FORMAT,
    formatVersion: DETECTOR_FORMAT_VERSION,
    kind: 'frame',
    config: detector.config,
    extra: detector.meta,
    tensors: detector.namedVariables(),
  });
}

export function loadDetector(dir: string): Promise<SuccessDetector> {
  return restoreModel(
    dir,
    { format: DETECTOR_FORMAT, formatVersion: DETECTOR_FORMAT_VERSION, what: 'success detector' },
    detectorConfigSchema,
    (config, manifest) => new SuccessDetector(config, manifest.extra as DetectorMeta),
  );
}

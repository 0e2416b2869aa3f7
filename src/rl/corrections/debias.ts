/** Online debiasing of imagined scores by the isotonic map fitted on anchor pairs (isotonicCalibrator.ts). */
import type { IsotonicCalibrator } from './isotonicCalibrator.ts';
import type { Method } from '../config/method.ts';

/** Scores debiased by the map as it is now (as they are when the run does not debias). */
export function debiased(method: Method, calibrator: IsotonicCalibrator, scores: ArrayLike<number>): Float32Array {
  return method.debias ? calibrator.mapAll(scores) : Float32Array.from(scores);
}

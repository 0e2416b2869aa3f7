/**
 * GRPO's group-relative advantages: each rollout's score standardised within its group
 * (same instruction, same start). A group whose scores are all equal teaches nothing: zeros.
 */
export function groupAdvantages(scores: ArrayLike<number>, groupSize: number, eps = 1e-6): Float32Array {
  if (scores.length % groupSize !== 0) throw new Error(`${scores.length} scores do not split into groups of ${groupSize}`);
  const out = new Float32Array(scores.length);
  for (let g = 0; g < scores.length; g += groupSize) {
    let mean = 0;
    for (let i = 0; i < groupSize; i++) mean += scores[g + i]!;
    mean /= groupSize;
    let variance = 0;
    for (let i = 0; i < groupSize; i++) variance += (scores[g + i]! - mean) ** 2;
    const std = Math.sqrt(variance / groupSize);
    if (std < eps) continue;
    for (let i = 0; i < groupSize; i++) out[g + i] = (scores[g + i]! - mean) / std;
  }
  return out;
}

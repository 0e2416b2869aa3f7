/**
 * GRPO's group-relative advantages: each rollout's score standardised within its group
 * (same instruction, same start). A group whose scores are all equal teaches nothing: zeros.
 * `centered` only subtracts the group mean (Dr. GRPO, Liu et al. 2025): small score differences
 * stay small instead of being blown up to unit variance.
 */
export function groupAdvantages(
  scores: ArrayLike<number>,
  groupSize: number,
  options: { scale?: 'std' | 'centered'; eps?: number } = {},
): Float32Array {
  const eps = options.eps ?? 1e-6;
  const standardise = (options.scale ?? 'std') === 'std';
  if (scores.length % groupSize !== 0)
    throw new Error(`${scores.length} scores do not split into groups of ${groupSize}`);
  const out = new Float32Array(scores.length);
  for (let g = 0; g < scores.length; g += groupSize) {
    let mean = 0;
    for (let i = 0; i < groupSize; i++) mean += scores[g + i]!;
    mean /= groupSize;
    let variance = 0;
    for (let i = 0; i < groupSize; i++) variance += (scores[g + i]! - mean) ** 2;
    const std = Math.sqrt(variance / groupSize);
    if (std < eps) continue;
    for (let i = 0; i < groupSize; i++) out[g + i] = (scores[g + i]! - mean) / (standardise ? std : 1);
  }
  return out;
}

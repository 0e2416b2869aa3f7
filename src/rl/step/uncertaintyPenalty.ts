/**
 * A pessimistic imagined score (MOPO's uncertainty penalty): each rollout's score less α times the
 * ensemble's standard deviation of it. A policy that learns in imagination moves towards what the
 * world model scores high, including where the model is wrong; where it is wrong its members tend to
 * disagree, so there a rollout ranks lower in its group. α = 0 leaves the scores as they are.
 */
export function penalisedScores(scores: Float32Array, variances: ArrayLike<number>, alpha: number): Float32Array {
  if (!(alpha >= 0)) throw new Error(`uncertaintyPenalty must be ≥ 0, got ${alpha}`);
  if (variances.length !== scores.length)
    throw new Error(`uncertainty penalty: ${scores.length} scores but ${variances.length} variances`);
  if (alpha === 0) return scores;
  return scores.map((s, i) => s - alpha * Math.sqrt(Math.max(0, variances[i]!)));
}

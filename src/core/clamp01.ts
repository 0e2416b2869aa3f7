/** `x` held to [0, 1] (NaN stays NaN). */
export function clamp01(x: number): number {
  return Math.min(1, Math.max(0, x));
}

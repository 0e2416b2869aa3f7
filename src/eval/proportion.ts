/** Confidence intervals for success rates. */

/** Wilson score interval for k successes in n trials (default 95%). Sound for small n and k near 0 or n. */
export function wilsonInterval(k: number, n: number, z = 1.959964): { rate: number; low: number; high: number } {
  if (n === 0) return { rate: NaN, low: 0, high: 1 };
  const p = k / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / (1 + z2 / n);
  return { rate: p, low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

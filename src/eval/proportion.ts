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

/**
 * The difference of two success rates measured on the same episodes (a[i] and b[i] are one
 * episode's outcomes under two policies), with the Agresti–Min interval: the paired Wald
 * interval after adding ½ to each cell of the 2×2 table, which keeps its coverage near nominal
 * for small n and differences near ±1 (Agresti & Min 2005).
 */
export function pairedDifference(
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  z = 1.959964,
): { difference: number; low: number; high: number; episodes: number } {
  if (a.length !== b.length) throw new Error(`paired difference: ${a.length} outcomes against ${b.length}`);
  const n = a.length;
  let onlyA = 0;
  let onlyB = 0;
  for (let i = 0; i < n; i++) {
    if (a[i]! > 0.5 && !(b[i]! > 0.5)) onlyA++;
    else if (b[i]! > 0.5 && !(a[i]! > 0.5)) onlyB++;
  }
  const nn = n + 2;
  const p = onlyA + 0.5;
  const q = onlyB + 0.5;
  const centre = (p - q) / nn;
  const half = (z * Math.sqrt(p + q - (p - q) ** 2 / nn)) / nn;
  return {
    difference: n > 0 ? (onlyA - onlyB) / n : 0,
    low: Math.max(-1, centre - half),
    high: Math.min(1, centre + half),
    episodes: n,
  };
}

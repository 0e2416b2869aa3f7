/**
 * Whether two independent estimates of one quantity agree: a figure the demo printed from its own
 * evaluation episodes, and the same figure measured again on other episodes (a check). Each comes
 * with its 95% interval; their gap has the standard error √(se₁² + se₂²), each se read from its
 * interval's half-width, since the two episode sets share nothing. They agree when the gap's
 * interval holds 0.
 *
 * The stricter reading, "the check's point lies inside the printed interval", is reported beside it
 * but is not a test of agreement: it ignores the check's own sampling error, so two unbiased
 * estimates of one quantity (the check on 1.5× the episodes) fail it about 13% of the time each.
 */

/** An estimate with its 95% interval (e.g. a paired difference of success rates). */
export interface IntervalEstimate {
  difference: number;
  low: number;
  high: number;
}

export interface Agreement {
  /** first − second. */
  gap: number;
  /** The gap's interval at the same level as the estimates'. */
  low: number;
  high: number;
  /** The gap's interval holds 0. */
  agree: boolean;
  /** The second estimate's point lies inside the first's interval (the stricter reading). */
  secondInsideFirst: boolean;
}

/** Compares two independent estimates, each given with its interval at the normal quantile `z`. */
export function estimatesAgree(first: IntervalEstimate, second: IntervalEstimate, z = 1.959964): Agreement {
  for (const [name, e] of [
    ['first', first],
    ['second', second],
  ] as const)
    if (!(e.low <= e.high) || !Number.isFinite(e.difference))
      throw new Error(
        `estimate agreement: the ${name} estimate needs low ≤ high and a finite value, got ${JSON.stringify(e)}`,
      );
  const se = (e: IntervalEstimate) => (e.high - e.low) / (2 * z);
  const gap = first.difference - second.difference;
  const half = z * Math.hypot(se(first), se(second));
  return {
    gap,
    low: gap - half,
    high: gap + half,
    agree: Math.abs(gap) <= half,
    secondInsideFirst: second.difference >= first.low && second.difference <= first.high,
  };
}

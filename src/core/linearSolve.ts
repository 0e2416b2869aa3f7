/** Small dense linear systems (normal equations of ridge fits with a handful of features). */

/** Solve A·x = b by Gaussian elimination with partial pivoting (A symmetric positive semi-definite, small). */
export function solve(a: Float64Array[], b: Float64Array): number[] {
  const d = b.length;
  const m = a.map((r, i) => [...r, b[i]!]);
  for (let col = 0; col < d; col++) {
    let pivot = col;
    for (let r = col + 1; r < d; r++) if (Math.abs(m[r]![col]!) > Math.abs(m[pivot]![col]!)) pivot = r;
    [m[col], m[pivot]] = [m[pivot]!, m[col]!];
    const p = m[col]![col]!;
    // A singular direction (a feature constant over every pair) gets weight 0.
    if (Math.abs(p) < 1e-12) continue;
    for (let r = 0; r < d; r++) {
      if (r === col) continue;
      const f = m[r]![col]! / p;
      if (f !== 0) for (let c = col; c <= d; c++) m[r]![c]! -= f * m[col]![c]!;
    }
  }
  return m.map((r, i) => (Math.abs(r[i]!) < 1e-12 ? 0 : r[d]! / r[i]!));
}

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

/**
 * Ridge regression weights of y on the rows of X: (XᵀX + penalty·n·I) w = Xᵀy. The penalty is per row, so
 * it means the same for a handful of episodes and for thousands of frames.
 */
export function ridge(X: ArrayLike<number>[], y: ArrayLike<number>, penalty: number): number[] {
  const F = X[0]!.length;
  const a = Array.from({ length: F }, () => new Float64Array(F));
  const b = new Float64Array(F);
  X.forEach((row, n) => {
    for (let i = 0; i < F; i++) {
      const ri = row[i]!;
      if (ri === 0) continue;
      b[i]! += ri * y[n]!;
      const ai = a[i]!;
      for (let j = i; j < F; j++) ai[j]! += ri * row[j]!;
    }
  });
  for (let i = 0; i < F; i++) {
    a[i]![i]! += penalty * X.length;
    for (let j = 0; j < i; j++) a[i]![j] = a[j]![i]!;
  }
  return solve(a, b);
}

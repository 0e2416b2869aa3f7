/** The detector's figures as the lines `wmrl success train|eval` print. */
import type { DetectorFigures } from './detectorMetrics.ts';

export function figureLines(f: DetectorFigures, what: string): string[] {
  const c = f.confusion;
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  const lines = [
    `${what}: ${f.episodes} episodes, ${f.successes} successes`,
    `  AUROC ${f.auroc === null ? 'n/a (one class only)' : f.auroc.toFixed(3)}  ` +
      `Brier ${f.brier.toFixed(3)}  ECE ${f.ece.toFixed(3)}  ` +
      `accuracy ${pct(f.accuracy)} at threshold ${f.threshold.toFixed(3)}`,
    `  confusion at ${f.threshold.toFixed(3)}: true success ${c.truePositive} detected / ${c.falseNegative} missed; ` +
      `true failure ${c.trueNegative} rejected / ${c.falsePositive} called success`,
    '  calibration (predicted → observed, episodes):',
  ];
  for (const b of f.bins)
    if (b.count > 0)
      lines.push(
        `    [${b.lower.toFixed(1)}, ${b.upper.toFixed(1)})  ` +
          `${b.predicted!.toFixed(2)} → ${b.observed!.toFixed(2)}  (${b.count})`,
      );
  return lines;
}

/**
 * The run's training curves from train.metrics.jsonl records: success (imagined, calibrated,
 * anchors, the PPI estimate with its interval, held-out evaluations), the debiasing map of the
 * selected step, the denoising weights and the robot-seconds used. Clicking a chart selects a step.
 */
import type { MetricsRecord } from '../../src/viewer/messages.ts';
import { LineChart, type Series } from './lineChart.ts';

interface StepRecord {
  step: number;
  successImagined: number | null;
  successCalibrated: number | null;
  successAnchors: number | null;
  ppi: { estimate: number; lower: number; upper: number } | null;
  debiasMap: { x: number[]; y: number[] };
  calibrationPairs: number;
  anchorWeight: number;
  ensembleWeight: { min: number; max: number } | null;
  robotSeconds: number;
}

export function stepRecords(records: readonly MetricsRecord[]): StepRecord[] {
  return records.filter((r) => r.kind === 'step' && typeof r.step === 'number') as unknown as StepRecord[];
}

export class TrainingCharts {
  #success: LineChart;
  #debias: LineChart;
  #weights: LineChart;
  #robot: LineChart;
  #caption: HTMLElement;

  constructor(onPick: (step: number) => void) {
    const canvas = (id: string) => document.getElementById(id) as HTMLCanvasElement;
    this.#success = new LineChart(canvas('chart-success'), onPick);
    this.#debias = new LineChart(canvas('chart-debias'));
    this.#weights = new LineChart(canvas('chart-weights'), onPick);
    this.#robot = new LineChart(canvas('chart-robot'), onPick);
    this.#caption = document.getElementById('debias-caption')!;
  }

  draw(records: readonly MetricsRecord[], selected: number | null): void {
    const steps = stepRecords(records);
    const evals = records.filter(
      (r) => r.kind === 'eval' && typeof r.step === 'number' && typeof r.successRate === 'number',
    );
    const pts = (f: (s: StepRecord) => number | null | undefined): [number, number][] =>
      steps.flatMap((s) => (typeof f(s) === 'number' ? [[s.step, f(s) as number] as [number, number]] : []));
    const series: Series[] = [
      { name: 'imagined', colour: '#8a8a8a', points: pts((s) => s.successImagined), dash: [4, 3] },
      { name: 'calibrated', colour: '#7a4fd0', points: pts((s) => s.successCalibrated) },
      { name: 'anchors', colour: '#e07b00', points: pts((s) => s.successAnchors) },
      { name: 'PPI', colour: '#1b8a3a', points: pts((s) => s.ppi?.estimate) },
      {
        name: 'eval',
        colour: '#c2185b',
        points: evals.map((e) => [e.step as number, e.successRate as number]),
        dots: true,
      },
    ];
    const band = steps.flatMap((s) =>
      s.ppi ? [[s.step, Math.max(0, s.ppi.lower), Math.min(1, s.ppi.upper)] as [number, number, number]] : [],
    );
    this.#success.draw({
      series,
      bands: [{ colour: 'rgba(27,138,58,0.15)', points: band }],
      y: [0, 1],
      marker: selected,
      empty: 'no training steps logged yet',
    });

    const at = steps.find((s) => s.step === selected) ?? steps.at(-1);
    if (at) {
      this.#caption.textContent =
        `Debiasing map f̂ at step ${at.step} (${at.calibrationPairs} anchor pairs; ` + `dashed: identity)`;
      const knots = at.debiasMap.x.map((x, i) => [x, at.debiasMap.y[i]!] as [number, number]);
      // The fitted map is constant beyond its outer knots (isotonic regression); the applied one adds
      // isotonic.orderSlope's small slope (0.001 by default: invisible here).
      const map: [number, number][] = knots.length
        ? [[0, knots[0]![1]], ...knots, [1, knots.at(-1)![1]]]
        : [
            [0, 0],
            [1, 1],
          ];
      this.#debias.draw({
        series: [
          { name: 'f̂(r̂)', colour: '#7a4fd0', points: map },
          {
            name: 'identity',
            colour: '#aaa',
            points: [
              [0, 0],
              [1, 1],
            ],
            dash: [4, 3],
          },
        ],
        x: [0, 1],
        y: [0, 1],
      });
    } else {
      this.#caption.textContent = 'Debiasing map';
      this.#debias.draw({ series: [], empty: 'no training steps logged yet' });
    }
    this.#weights.draw({
      series: [
        { name: 'anchor w', colour: '#e07b00', points: pts((s) => s.anchorWeight) },
        { name: 'ens. min', colour: '#2a6fdb', points: pts((s) => s.ensembleWeight?.min), dash: [3, 2] },
        { name: 'ens. max', colour: '#2a6fdb', points: pts((s) => s.ensembleWeight?.max) },
      ],
      marker: selected,
      empty: 'no training steps logged yet',
    });
    this.#robot.draw({
      series: [{ name: 'robot-seconds', colour: '#444', points: pts((s) => s.robotSeconds) }],
      marker: selected,
      empty: 'no training steps logged yet',
    });
  }
}

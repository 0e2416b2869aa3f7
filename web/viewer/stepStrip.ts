/**
 * Per time step of the open episode: real progress (solid) and success (green ticks), the
 * imagined ensemble's mean success probability (dashed) and progress (dotted), and ensemble
 * disagreement (grey bars, end-effector spread); a cursor at the current step, and a readout.
 * An episode waiting for the operator's label comes without its progress and success (blind).
 */
import { sharpContext } from './canvas2d.ts';
import type { EpisodeView } from '../../src/viewer/messages.ts';

export class StepStrip {
  #canvas = document.getElementById('step-strip') as HTMLCanvasElement;
  #readout = document.getElementById('step-readout')!;
  #view: EpisodeView | null = null;
  #frame = 0;

  constructor() {
    new ResizeObserver(() => this.#draw()).observe(this.#canvas);
  }

  show(view: EpisodeView): void {
    this.#view = view;
  }

  setFrame(t: number): void {
    this.#frame = t;
    this.#draw();
  }

  #draw(): void {
    const view = this.#view;
    const { g, w, h } = sharpContext(this.#canvas, 400, 70);
    if (!view) return;
    const T = view.ee.length / 3 - 1;
    const px = (t: number) => 4 + (t / Math.max(1, T)) * (w - 8);
    const py = (v: number) => h - 4 - v * (h - 8);
    const im = view.imagined;
    if (im) {
      const maxSpread = Math.max(0.05, ...im.disagreement);
      g.fillStyle = 'rgba(120,120,120,0.35)';
      im.disagreement.forEach((d, t) => g.fillRect(px(t) - 1.5, py(d / maxSpread), 3, (d / maxSpread) * (h - 8)));
      line(
        g,
        Array.from({ length: im.horizon }, (_, t) => [px(t + 1), py(memberMean(im.successProb, t, im.members))]),
        '#2a6fdb',
        [5, 3],
      );
      line(
        g,
        Array.from({ length: im.horizon }, (_, t) => [px(t + 1), py(memberMean(im.progress, t, im.members))]),
        '#2a6fdb',
        [1, 3],
      );
    }
    const { progress, successes } = view;
    if (progress)
      line(
        g,
        Array.from(progress, (p, t) => [px(t), py(p)]),
        '#222',
        [],
      );
    g.fillStyle = '#1b8a3a';
    successes?.forEach((s, t) => s && g.fillRect(px(t) - 1, 2, 2, 8));
    g.strokeStyle = '#d33';
    g.beginPath();
    g.moveTo(px(this.#frame), 0);
    g.lineTo(px(this.#frame), h);
    g.stroke();
    const t = this.#frame;
    let text =
      progress && successes
        ? `step ${t}/${T} · real progress ${progress[t]!.toFixed(2)} · success ${successes[t] ? 'yes' : 'no'}`
        : `step ${t}/${T} · progress and success shown once you label it`;
    if (im && t >= 1 && t <= im.horizon)
      text +=
        ` · imagined success ${memberMean(im.successProb, t - 1, im.members).toFixed(2)}, ` +
        `progress ${memberMean(im.progress, t - 1, im.members).toFixed(2)}`;
    if (im) text += ` · ensemble spread ${(100 * im.disagreement[Math.min(t, im.horizon)]!).toFixed(1)} cm`;
    this.#readout.textContent = text;
  }
}

function memberMean(values: Float32Array, t: number, K: number): number {
  let s = 0;
  for (let k = 0; k < K; k++) s += values[t * K + k]!;
  return s / K;
}

function line(g: CanvasRenderingContext2D, points: number[][], colour: string, dash: number[]): void {
  g.strokeStyle = colour;
  g.lineWidth = 1.5;
  g.setLineDash(dash);
  g.beginPath();
  points.forEach(([x, y], i) => (i ? g.lineTo(x!, y!) : g.moveTo(x!, y!)));
  g.stroke();
  g.setLineDash([]);
}

/**
 * A small canvas line chart (no chart library: the page must load nothing from the network and
 * stay small). Series of (x, y) points, optional shaded bands, a highlighted x, a legend; a
 * click reports the nearest x.
 */
import { sharpContext } from './canvas2d.ts';

export interface Series {
  name: string;
  colour: string;
  points: [number, number][];
  dash?: number[];
  /** Draw dots only (e.g. evaluations). */
  dots?: boolean;
}

export interface Band {
  colour: string;
  /** [x, lower, upper] */
  points: [number, number, number][];
}

export interface ChartData {
  series: Series[];
  bands?: Band[];
  /** Fixed y range; default: the data's. */
  y?: [number, number];
  /** Fixed x range; default: the data's. */
  x?: [number, number];
  /** Vertical marker at this x (the selected step). */
  marker?: number | null;
  empty?: string;
}

const PAD = { left: 30, right: 6, top: 14, bottom: 16 };

export class LineChart {
  #canvas: HTMLCanvasElement;
  #data: ChartData = { series: [] };
  #range: { x: [number, number] } = { x: [0, 1] };

  constructor(canvas: HTMLCanvasElement, onPick?: (x: number) => void) {
    this.#canvas = canvas;
    new ResizeObserver(() => this.draw(this.#data)).observe(canvas);
    if (onPick) {
      canvas.addEventListener('click', (ev) => {
        const r = canvas.getBoundingClientRect();
        const [x0, x1] = this.#range.x;
        const f = (ev.clientX - r.left - PAD.left) / Math.max(1, r.width - PAD.left - PAD.right);
        onPick(Math.round(x0 + f * (x1 - x0)));
      });
    }
  }

  draw(data: ChartData): void {
    this.#data = data;
    const { g, w, h } = sharpContext(this.#canvas, 300, 120);
    g.font = '10px system-ui, sans-serif';
    const all = [
      ...data.series.flatMap((s) => s.points),
      ...(data.bands ?? []).flatMap((b) =>
        b.points.flatMap(([x, lo, hi]) => [[x, lo] as [number, number], [x, hi] as [number, number]]),
      ),
    ];
    if (all.length === 0) {
      g.fillStyle = '#999';
      g.fillText(data.empty ?? 'no data yet', PAD.left, h / 2);
      return;
    }
    const x = data.x ?? span(all.map((p) => p[0]));
    const y = data.y ?? span(all.map((p) => p[1]));
    this.#range = { x };
    const px = (v: number) => PAD.left + ((v - x[0]) / (x[1] - x[0] || 1)) * (w - PAD.left - PAD.right);
    const py = (v: number) => h - PAD.bottom - ((v - y[0]) / (y[1] - y[0] || 1)) * (h - PAD.top - PAD.bottom);
    // Axes with end labels.
    g.strokeStyle = '#ccc';
    g.lineWidth = 1;
    g.strokeRect(PAD.left, PAD.top, w - PAD.left - PAD.right, h - PAD.top - PAD.bottom);
    g.fillStyle = '#888';
    g.fillText(fmt(y[1]), 2, PAD.top + 8);
    g.fillText(fmt(y[0]), 2, h - PAD.bottom);
    g.fillText(fmt(x[0]), PAD.left, h - 4);
    const xr = fmt(x[1]);
    g.fillText(xr, w - PAD.right - g.measureText(xr).width, h - 4);
    for (const b of data.bands ?? []) {
      if (b.points.length === 0) continue;
      g.fillStyle = b.colour;
      g.beginPath();
      b.points.forEach(([bx, , hi], i) => (i ? g.lineTo(px(bx), py(hi)) : g.moveTo(px(bx), py(hi))));
      for (const [bx, lo] of [...b.points].reverse()) g.lineTo(px(bx), py(lo));
      g.closePath();
      g.fill();
    }
    if (data.marker !== undefined && data.marker !== null) {
      g.strokeStyle = '#2a6fdb';
      g.setLineDash([3, 3]);
      g.beginPath();
      g.moveTo(px(data.marker), PAD.top);
      g.lineTo(px(data.marker), h - PAD.bottom);
      g.stroke();
      g.setLineDash([]);
    }
    let legendX = PAD.left;
    for (const s of data.series) {
      g.strokeStyle = s.colour;
      g.fillStyle = s.colour;
      g.lineWidth = 1.6;
      g.setLineDash(s.dash ?? []);
      if (s.dots || s.points.length === 1) for (const [sx, sy] of s.points) g.fillRect(px(sx) - 2, py(sy) - 2, 4, 4);
      if (!s.dots) {
        g.beginPath();
        s.points.forEach(([sx, sy], i) => (i ? g.lineTo(px(sx), py(sy)) : g.moveTo(px(sx), py(sy))));
        g.stroke();
      }
      g.setLineDash([]);
      g.fillText(s.name, legendX, 10);
      legendX += g.measureText(s.name).width + 10;
    }
  }
}

function span(values: number[]): [number, number] {
  let lo = Math.min(...values);
  let hi = Math.max(...values);
  if (lo === hi) {
    lo -= 0.5;
    hi += 0.5;
  }
  return [lo, hi];
}

function fmt(v: number): string {
  if (Number.isInteger(v)) return String(v);
  return Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1) : v.toFixed(2);
}

/**
 * The robot-time metric every arm is reported by, and its plot: worked numbers for the
 * interpolation, the whole-budget rule, the mean curve, and what the SVG and text renderings show.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  commonTarget,
  meanCurve,
  meanCurveTimeToReach,
  successAt,
  timeToReach,
  timeToTarget,
} from '../../src/eval/learningCurves.ts';
import { learningCurveSvg, learningCurveText } from '../../src/eval/learningCurvePlot.ts';

const curve = [
  { robotSeconds: 0, success: 0.6 },
  { robotSeconds: 100, success: 0.7 },
  { robotSeconds: 300, success: 0.9 },
];

test('the common target is the start plus 80% of the reference gain', () => {
  assert.ok(Math.abs(commonTarget(0.6, 0.85) - 0.8) < 1e-12);
  assert.ok(Math.abs(commonTarget(0.5, 0.7, 0.5) - 0.6) < 1e-12);
});

test('time to reach: linear between evaluations; null when never reached', () => {
  assert.equal(timeToReach(curve, 0.6), 0);
  assert.ok(Math.abs(timeToReach(curve, 0.65)! - 50) < 1e-9);
  assert.ok(Math.abs(timeToReach(curve, 0.8)! - 200) < 1e-9);
  assert.equal(timeToReach(curve, 0.95), null);
  // the first crossing counts, not a later one
  const dip = [...curve, { robotSeconds: 400, success: 0.5 }, { robotSeconds: 500, success: 0.95 }];
  assert.ok(Math.abs(timeToReach(dip, 0.8)! - 200) < 1e-9);
});

test('time to target: a run that never reaches it counts at its whole budget', () => {
  const reached = timeToTarget(curve, 0.65);
  assert.ok(reached.reached && Math.abs(reached.seconds - 50) < 1e-9);
  assert.deepEqual(timeToTarget(curve, 0.95), { seconds: 300, reached: false });
});

test('success at a robot time: interpolated, null beyond the last evaluation', () => {
  assert.equal(successAt(curve, 0), 0.6);
  assert.ok(Math.abs(successAt(curve, 200)! - 0.8) < 1e-12);
  assert.equal(successAt(curve, 300), 0.9);
  assert.equal(successAt(curve, 301), null);
});

test('time to reach on the mean curve: a peak counts by its share; null past the shortest run', () => {
  // One run peaks at 0.9 after 100 s and falls back; the other climbs to 0.8 by 400 s.
  const peak = [
    { robotSeconds: 0, success: 0.6 },
    { robotSeconds: 100, success: 0.9 },
    { robotSeconds: 200, success: 0.7 },
    { robotSeconds: 400, success: 0.8 },
  ];
  const climb = [
    { robotSeconds: 0, success: 0.6 },
    { robotSeconds: 400, success: 0.8 },
  ];
  // Per run the peak crosses 0.8 at 66.7 s. The mean: 0.6 at 0 s, (0.9 + 0.65) / 2 = 0.775 at 100,
  // (0.7 + 0.7) / 2 = 0.7 at 200, 0.8 at 400: 0.75 is first reached at 0.75 − 0.6 = 0.15 of 0.175, 85.7 s;
  // 0.8 only at 400 s, and 0.85 never.
  assert.ok(Math.abs(timeToReach(peak, 0.8)! - 200 / 3) < 1e-9);
  assert.ok(Math.abs(meanCurveTimeToReach([peak, climb], 0.75)! - 600 / 7) < 1e-9);
  assert.ok(Math.abs(meanCurveTimeToReach([peak, climb], 0.8)! - 400) < 1e-9);
  assert.equal(meanCurveTimeToReach([peak, climb], 0.85), null);
  // Only up to the shortest run: cut the climb at 200 s (0.7) and the mean never reaches 0.8.
  assert.equal(
    meanCurveTimeToReach(
      [peak, climb.map((p) => (p.robotSeconds === 400 ? { robotSeconds: 200, success: 0.7 } : p))],
      0.8,
    ),
    null,
  );
  assert.equal(meanCurveTimeToReach([], 0.8), null);
});

test('mean curve: per evaluation, mean robot time, mean and sample sd of success', () => {
  const other = [
    { robotSeconds: 0, success: 0.6 },
    { robotSeconds: 120, success: 0.8 },
    { robotSeconds: 320, success: 0.7 },
  ];
  const m = meanCurve([curve, other]);
  assert.equal(m.length, 3);
  assert.equal(m[1]!.robotSeconds, 110);
  assert.ok(Math.abs(m[1]!.mean - 0.75) < 1e-12);
  assert.ok(Math.abs(m[1]!.sd - Math.SQRT2 * 0.05) < 1e-12);
  assert.equal(m[0]!.sd, 0);
  assert.equal(m[2]!.runs, 2);
  assert.deepEqual(meanCurve([]), []);
});

test('the plot: a band and a line per arm, log time ticks, the target dashed; the text version too', () => {
  const arms = [
    { name: 'real-only', colour: '#d62728', points: meanCurve([curve, curve]) },
    {
      name: 'WMRL',
      colour: '#1f77b4',
      points: meanCurve([
        [
          { robotSeconds: 0, success: 0.6 },
          { robotSeconds: 20, success: 0.75 },
        ],
      ]),
    },
  ];
  const svg = learningCurveSvg({ arms, target: 0.8, title: 'reach' });
  assert.equal((svg.match(/<polygon/g) ?? []).length, 2);
  assert.equal((svg.match(/<polyline/g) ?? []).length, 2);
  assert.match(svg, /stroke-dasharray="6 4"/);
  assert.match(svg, /target 80%/);
  assert.match(svg, />100 s</);
  assert.match(svg, /real-only \(2 seeds\)/);
  assert.match(svg, /robot time used for training \(s, log scale\)/);
  // What the time axis counts can be named (the benchmark's plot with the world model's data charged).
  const charged = learningCurveSvg({ arms, target: 0.8, timeLabel: 'data & training' });
  assert.match(charged, /data &amp; training \(s, log scale\)/);
  const text = learningCurveText({ arms, target: 0.8 }, ['R', 'W']);
  const rows = text.split('\n');
  const targetRow = rows.find((r) => r.startsWith(' 80%'))!;
  assert.match(targetRow, /-{10}/);
  assert.ok(rows.some((r) => r.includes('R')) && rows.some((r) => r.includes('W')));
  assert.match(text, /100 s/);
  assert.match(text, /R real-only {3}W WMRL {3}- target 80%/);
});

test('the plot: a legend of long arm names widens the picture and stays inside it', () => {
  const name = 'WMRL, branched, refit every step, until KL > 0.1, then GRPO on 2 real groups';
  const arms = [0.2, 0.5].map((low, i) => ({
    name: `${name} ${i}`,
    colour: '#1f77b4',
    points: meanCurve([
      [
        { robotSeconds: 0, success: 0.6 },
        { robotSeconds: 100, success: low },
      ],
      [
        { robotSeconds: 0, success: 0.6 },
        { robotSeconds: 100, success: low + 0.1 },
      ],
    ]),
  }));
  const svg = learningCurveSvg({ arms, target: 0.8 });
  const width = Number(svg.match(/<svg [^>]*width="(\d+)"/)![1]);
  assert.ok(width > 680, `width ${width}`);
  const legend = svg.match(/<rect x="([\d.-]+)" y="[\d.-]+" width="([\d.]+)" height="[\d.]+" fill="white" opacity/)!;
  const [x, w] = [Number(legend[1]), Number(legend[2])];
  assert.ok(x >= 56 && x + w <= width - 86, `legend from ${x} to ${x + w} in ${width}`);
  // A long title widens the picture too.
  const title = 'a title as long as the benchmark writes when it names what its time axis charges, and more';
  const titled = learningCurveSvg({ arms: arms.slice(0, 1), target: 0.8, title });
  assert.ok(Number(titled.match(/<svg [^>]*width="(\d+)"/)![1]) >= 56 + 8 * title.length);
});

test('the plot: a legend that would hide a curve in every corner goes below the axes', () => {
  // Seven arms whose curves run from bottom left to top right and top left to bottom right fill every corner.
  const arms = [0, 1, 2, 3, 4, 5, 6].map((i) => ({
    name: `arm ${i}`,
    colour: '#1f77b4',
    points: meanCurve([
      [
        { robotSeconds: 0, success: i % 2 ? 0.95 : 0.4 },
        { robotSeconds: 10, success: 0.7 },
        { robotSeconds: 1000, success: i % 2 ? 0.4 : 0.95 },
      ],
    ]),
  }));
  const svg = learningCurveSvg({ arms, target: 0.8 });
  const height = Number(svg.match(/<svg [^>]*height="(\d+)"/)![1]);
  const legend = svg.match(/<rect x="[\d.-]+" y="([\d.-]+)" width="[\d.]+" height="([\d.]+)" fill="white" opacity/)!;
  const [y, h] = [Number(legend[1]), Number(legend[2])];
  assert.ok(y >= 400 && y + h <= height, `legend from ${y} to ${y + h} in a picture ${height} high`);
  // Two arms leave a corner free: the legend stays inside the axes and the picture 400 high.
  const two = learningCurveSvg({ arms: arms.slice(0, 2), target: 0.8 });
  assert.match(two, /<svg [^>]*height="400"/);
});

test('the plot: a segment between evaluations is drawn linear in robot time, as the metric interpolates it', () => {
  const arms = [
    {
      name: 'real-only',
      colour: '#d62728',
      points: meanCurve([
        [
          { robotSeconds: 10, success: 0.6 },
          { robotSeconds: 1000, success: 0.8 },
        ],
      ]),
    },
  ];
  const svg = learningCurveSvg({ arms });
  const line = svg
    .match(/<polyline [^>]*points="([^"]+)"/)![1]!
    .split(' ')
    .map((xy) => xy.split(',').map(Number) as [number, number]);
  const [first, last] = [line[0]!, line.at(-1)!];
  // Halfway in success (70%) is halfway in robot time (505 s): on the log axis 85% of the way from 10 s to 1000 s,
  // where a straight segment would put it halfway.
  const half = line.find(([, py]) => Math.abs(py - (first[1] + last[1]) / 2) < 0.6)!;
  const along = (half[0] - first[0]) / (last[0] - first[0]);
  assert.ok(Math.abs(along - Math.log10(505 / 10) / 2) < 0.01, `70% drawn ${along.toFixed(3)} of the way along`);
});

/** Daily availability windows ("08:00-18:00", UTC): is a robot available now, and when next. */
const DAY = 86_400_000;

function minutesOf(hhmm: string): number {
  const [h, m] = hhmm.split(':').map(Number);
  return h! * 60 + m!;
}

/** Windows as [start, end) ms offsets within a UTC day; one crossing midnight ("22:00-06:00") splits in two. */
function ranges(windows: string[]): [number, number][] {
  const out: [number, number][] = [];
  for (const w of windows) {
    const [a, b] = w.split('-').map((t) => minutesOf(t!) * 60_000);
    if (a! < b!) out.push([a!, b!]);
    else out.push([a!, DAY], [0, b!]);
  }
  return out;
}

export function isAvailable(windows: string[], at: number): boolean {
  if (windows.length === 0) return true;
  const t = ((at % DAY) + DAY) % DAY;
  return ranges(windows).some(([a, b]) => t >= a && t < b);
}

/** The first instant ≥ at when the robot is available (at itself when it already is). */
export function nextAvailable(windows: string[], at: number): number {
  if (isAvailable(windows, at)) return at;
  const dayStart = at - (((at % DAY) + DAY) % DAY);
  let best = Infinity;
  for (const [a] of ranges(windows))
    for (const d of [0, DAY]) if (dayStart + d + a > at) best = Math.min(best, dayStart + d + a);
  return best;
}

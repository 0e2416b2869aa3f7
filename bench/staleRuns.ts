/**
 * Whether a cached benchmark run still answers its arm: the benchmark reuses a run folder by its
 * name (arm and seed), so a change to a preset or an arm's flags would otherwise be measured with
 * runs of the old config. A run is stale when a key its mode reads resolves differently now.
 */
import { resolveConfig } from '../src/core/config.ts';
import { keysUnread } from '../src/rl/config/method.ts';
import { removedAsToday, type WmrlConfig, wmrlConfigSchema } from '../src/rl/config/wmrlConfig.ts';

/**
 * Keys that only add measurements (PPI checks against real episodes, imagination checks, keeping
 * every evaluated policy): they change no training, so only turning one on makes a run stale.
 */
const MEASUREMENTS = ['ppiCheckEpisodes', 'imaginationCheckGroups', 'eval.keepPolicies'];

/** The schema's defaults, flattened: what a run made before a key existed behaved as. */
const DEFAULTS = flatten(resolveConfig(wmrlConfigSchema, {}) as unknown as Record<string, unknown>);

/** One config key whose value changed: the run's and the one its arm resolves now. */
export interface ChangedKey {
  key: string;
  was: unknown;
  now: unknown;
}

/**
 * The keys of `current` (what the arm resolves now) a run made with `stored` would have read
 * differently. A key the stored config lacks was added to the schema after the run, which then
 * behaved as its default: it counts only where it now differs from that default; a key the run set
 * that the arm now leaves unset counts too. Keys the mode never reads (keysUnread) are skipped, and so
 * are keys since removed that recorded what today's code behaves as, and measurements turned off.
 */
export function changedKeys(stored: Record<string, unknown>, current: WmrlConfig): ChangedKey[] {
  const unread = keysUnread(current.mode);
  const read = (key: string) => !unread.some((u) => key === u || key.startsWith(`${u}.`));
  const was = flatten(stored);
  const now = flatten(current as unknown as Record<string, unknown>);
  const changes: ChangedKey[] = [];
  for (const [key, value] of now) {
    if (!read(key)) continue;
    const before = was.has(key) ? was.get(key) : DEFAULTS.get(key);
    if (JSON.stringify(before) === JSON.stringify(value)) continue;
    // A run that measured something its arm no longer asks for still answers the arm.
    if (MEASUREMENTS.includes(key) && !value) continue;
    changes.push({ key, was: before, now: value });
  }
  // A key the run set that its arm now leaves unset, or one since removed from the schema that the run set to
  // anything but what today's code behaves as (REMOVED_KEYS): a rerun, never a wrong reuse.
  for (const [key, before] of was)
    if (!now.has(key) && read(key) && !MEASUREMENTS.includes(key) && !removedAsToday(key, before))
      changes.push({ key, was: before, now: undefined });
  return changes;
}

/**
 * The folders a run read (`key`: `data`, or `starts`, those of its group starts) against those its arm reads now, as a
 * change, or undefined when they are the same or the run recorded none (made before runs recorded them).
 */
export function changedData(key: string, stored: string[] | undefined, current: string[]): ChangedKey | undefined {
  if (stored === undefined || JSON.stringify(stored) === JSON.stringify(current)) return undefined;
  return { key, was: stored, now: current };
}

/**
 * Whether a cached run whose config differs only by more `steps` can be continued (`wmrl train --resume`, which
 * may raise `steps`) instead of run again: training is deterministic and a resume bit-exact, and `steps` only
 * bounds the loop, so its steps so far are those of a run that long.
 */
export function continuesRun(changes: ChangedKey[]): boolean {
  const [only] = changes;
  return (
    changes.length === 1 &&
    only!.key === 'steps' &&
    typeof only!.was === 'number' &&
    typeof only!.now === 'number' &&
    only!.now > only!.was
  );
}

/** `a.b: 1 → 2, c: x → y`: the changes in one line. */
export function describeChanges(changes: ChangedKey[]): string {
  return changes.map((c) => `${c.key}: ${JSON.stringify(c.was)} → ${JSON.stringify(c.now)}`).join(', ');
}

/** Dotted key → leaf value (arrays are leaves). */
function flatten(o: Record<string, unknown>, prefix = '', into = new Map<string, unknown>()): Map<string, unknown> {
  for (const [k, v] of Object.entries(o)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) flatten(v as Record<string, unknown>, key, into);
    else if (v !== undefined) into.set(key, v);
  }
  return into;
}

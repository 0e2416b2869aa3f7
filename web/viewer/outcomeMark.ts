/**
 * The mark in front of an episode's row. A question waiting for the operator is blind: an episode
 * whose label is pending shows **?** whatever its row carries (the server sends none), so neither a
 * stale list nor a recorded outcome can give the answer away.
 */
import type { EpisodeSummary } from '../../src/viewer/messages.ts';

/**
 * ? waiting for the operator's label, ● running (no success yet), ✓ success, – no outcome recorded
 * (an import without success information, unlabelled), ✗ none.
 */
export function outcomeMark(e: EpisodeSummary, pending: ReadonlySet<string> = new Set()): string {
  if (e.waiting || pending.has(e.id)) return '?';
  if (e.success) return '✓';
  if (e.running) return '●';
  return e.success === undefined ? '–' : '✗';
}

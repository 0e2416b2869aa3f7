/** Real-robot budgets, per training step and per UTC day; each limit is optional (absent = none). */
import { z } from 'zod';
import type { LedgerTotals } from './anchorQueue.ts';

export const budgetSchema = z
  .object({
    episodesPerStep: z.number().int().min(0).optional().describe('anchor episodes one training step may use'),
    robotSecondsPerStep: z.number().min(0).optional().describe('robot seconds one training step may use'),
    episodesPerDay: z.number().int().min(0).optional().describe('anchor episodes per UTC day, all steps'),
    robotSecondsPerDay: z.number().min(0).optional().describe('robot seconds per UTC day, all steps'),
  })
  .strict();

export type Budget = z.infer<typeof budgetSchema>;

/**
 * How many of `costs` (each request's maximum robot seconds, in order) fit the budget, given
 * what this step and this day have already spent. Reserving the maximum means the actual
 * charge can never go over.
 */
export function affordable(budget: Budget, spent: { step: LedgerTotals; day: LedgerTotals }, costs: number[]): number {
  let episodesStep = spent.step.episodes;
  let secondsStep = spent.step.robotSeconds;
  let episodesDay = spent.day.episodes;
  let secondsDay = spent.day.robotSeconds;
  let n = 0;
  for (const c of costs) {
    if (budget.episodesPerStep !== undefined && episodesStep + 1 > budget.episodesPerStep) break;
    if (budget.episodesPerDay !== undefined && episodesDay + 1 > budget.episodesPerDay) break;
    if (budget.robotSecondsPerStep !== undefined && secondsStep + c > budget.robotSecondsPerStep + 1e-9) break;
    if (budget.robotSecondsPerDay !== undefined && secondsDay + c > budget.robotSecondsPerDay + 1e-9) break;
    episodesStep++;
    episodesDay++;
    secondsStep += c;
    secondsDay += c;
    n++;
  }
  return n;
}

/** One question waiting for the operator, as the trainer lists it and the viewer page shows it (plain data). */
export type PendingItem =
  | {
      kind: 'label';
      /** The episode's id in the run's anchor store. */
      id: string;
      instruction: string;
      steps: number;
      /** Training step of the episode (null: not from a step). */
      step: number | null;
      reason: 'outcome' | 'spot-check';
      since: string;
    }
  | {
      kind: 'reset';
      /** This prompt's own id. */
      id: string;
      robot: string;
      instruction: string;
      /** What to set up, one action per line. */
      setup: string[];
      since: string;
    };

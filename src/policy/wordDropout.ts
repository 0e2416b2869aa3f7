/**
 * Word dropout for behaviour cloning: each instruction word of a training sample becomes <unk>
 * with probability p. The <unk> embedding is otherwise never trained (every training word is in
 * the vocabulary), so an unseen word at test time feeds random features into the max-pooled
 * language encoding; with dropout the policy learns to read the instruction around it.
 */
import type { Rng } from '../core/rng.ts';
import { PAD, UNK } from './tokenizer.ts';

/** Replaces each non-padding token of `tokens` by UNK with probability `p`, in place; returns `tokens`. */
export function dropWords(tokens: Int32Array, p: number, rng: Rng): Int32Array {
  if (!(p >= 0 && p <= 1)) throw new RangeError(`word dropout must be in [0, 1], got ${p}`);
  if (p === 0) return tokens;
  for (let i = 0; i < tokens.length; i++) if (tokens[i] !== PAD && rng.next() < p) tokens[i] = UNK;
  return tokens;
}

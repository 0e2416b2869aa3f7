/**
 * Word-level tokenizer for instructions. The vocabulary is built from the training data's
 * instructions, so words that only held-out paraphrases use map to <unk>, as they would for a
 * deployed policy meeting new phrasing.
 */
export const PAD = 0;
export const UNK = 1;

export class Tokenizer {
  readonly vocab: string[];
  readonly maxTokens: number;
  #index: Map<string, number>;

  constructor(vocab: string[], maxTokens: number) {
    if (vocab[PAD] !== '<pad>' || vocab[UNK] !== '<unk>')
      throw new Error('tokenizer vocabulary must start with <pad>, <unk>');
    this.vocab = vocab;
    this.maxTokens = maxTokens;
    this.#index = new Map(vocab.map((w, i) => [w, i]));
  }

  static fromTexts(texts: Iterable<string>, maxTokens: number): Tokenizer {
    const words = new Set<string>();
    for (const t of texts) for (const w of words_(t)) words.add(w);
    return new Tokenizer(['<pad>', '<unk>', ...[...words].sort()], maxTokens);
  }

  get size(): number {
    return this.vocab.length;
  }

  /** Token ids, truncated or padded to maxTokens. */
  encode(text: string): Int32Array {
    const ids = new Int32Array(this.maxTokens);
    words_(text)
      .slice(0, this.maxTokens)
      .forEach((w, i) => (ids[i] = this.#index.get(w) ?? UNK));
    return ids;
  }

  /** Words of `text` the vocabulary lacks (each once, in order): the policy reads them as <unk>. */
  unknownWords(text: string): string[] {
    return [...new Set(words_(text).filter((w) => !this.#index.has(w)))];
  }

  /** How many words of `text` the policy reads (the rest are cut off at maxTokens). */
  wordCount(text: string): number {
    return words_(text).length;
  }

  toJSON(): { vocab: string[]; maxTokens: number } {
    return { vocab: this.vocab, maxTokens: this.maxTokens };
  }
}

function words_(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

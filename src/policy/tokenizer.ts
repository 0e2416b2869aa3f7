/**
 * Word-level tokenizer for instructions. The vocabulary is built from the training data's instructions. A word
 * outside it is read by its spelling: as the known word whose character trigrams it shares most (Dice ≥
 * SPELLING_MATCH: `cubes` for `cube`, `picking` for `pick`), else as <unk>, as a deployed policy meets new phrasing.
 * Spelling finds a word's other forms, never its synonyms: `raise` is no `lift`.
 */
export const PAD = 0;
export const UNK = 1;

/**
 * Least Dice coefficient of two words' boundary-marked character trigrams for one to read as the other: forms of
 * one word (`block`/`blocks` 0.73, `pick`/`picking` 0.55) reach it; the built-in families' held-out paraphrase
 * words (`shove`/`move` 0.44) do not, so their held-out split stays held out.
 */
export const SPELLING_MATCH = 0.5;

export class Tokenizer {
  readonly vocab: string[];
  readonly maxTokens: number;
  #index: Map<string, number>;
  /** An unknown word's reading: the known word it is read as, or undefined for <unk>. */
  #spelled = new Map<string, string | undefined>();

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
      .forEach((w, i) => (ids[i] = this.#index.get(w) ?? this.#index.get(this.readAs(w) ?? '') ?? UNK));
    return ids;
  }

  /** The word `word` is read as: itself when known, the known word it is spelled most like, or undefined (<unk>). */
  readAs(word: string): string | undefined {
    if (this.#index.has(word)) return word;
    if (this.#spelled.has(word)) return this.#spelled.get(word);
    const mine = trigrams(word);
    let best: string | undefined;
    let bestScore = SPELLING_MATCH;
    for (const known of this.vocab.slice(UNK + 1)) {
      const score = dice(mine, trigrams(known));
      if (score >= bestScore && (best === undefined || score > bestScore)) {
        best = known;
        bestScore = score;
      }
    }
    this.#spelled.set(word, best);
    return best;
  }

  /** Words of `text` the vocabulary lacks (each once, in order): read by spelling (readAs) or as <unk>. */
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

/** The character trigrams of `<word>`. */
function trigrams(word: string): Set<string> {
  const marked = `<${word}>`;
  const out = new Set<string>();
  for (let i = 0; i + 3 <= marked.length; i++) out.add(marked.slice(i, i + 3));
  return out;
}

function dice(a: Set<string>, b: Set<string>): number {
  let shared = 0;
  for (const g of a) if (b.has(g)) shared++;
  return (2 * shared) / (a.size + b.size);
}

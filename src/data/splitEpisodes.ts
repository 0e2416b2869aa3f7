/** Split episode indices into train / validation, by episode, seeded. */
export function splitEpisodes(
  count: number,
  validationFraction: number,
  shuffle: (xs: number[]) => number[],
): { train: Set<number>; validation: Set<number> } {
  const order = shuffle(Array.from({ length: count }, (_, i) => i));
  const nVal = count < 2 || validationFraction === 0 ? 0 : Math.max(1, Math.round(count * validationFraction));
  return { validation: new Set(order.slice(0, nVal)), train: new Set(order.slice(nVal)) };
}

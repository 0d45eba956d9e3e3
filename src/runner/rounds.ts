/**
 * The order of the measured repetitions of a block, pure. Every round gives each cell (each
 * proxy of each variant) one repetition. `abba` reverses the order every other round
 * (A B | B A | A B ...), so a drift that is linear in time weighs the same on every cell of a
 * pair of rounds; `random` shuffles each round with a recorded seed.
 */

export type RoundOrder = "abba" | "random";

export interface Slot<T> {
  cell: T;
  round: number;
}

export function roundOrder<T>(
  cells: readonly T[],
  rounds: number,
  order: RoundOrder = "abba",
  seed = 1,
): Array<Slot<T>> {
  const random = mulberry32(seed);
  const out: Array<Slot<T>> = [];
  for (let round = 0; round < rounds; round++) {
    const these =
      order === "abba" ? (round % 2 === 0 ? [...cells] : [...cells].reverse()) : shuffle(cells, random);
    for (const cell of these) out.push({ cell, round });
  }
  return out;
}

/** Fisher-Yates: `items` in an order drawn from `random`. */
export function shuffle<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** A small seeded generator (mulberry32): the same seed gives the same order on every machine. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

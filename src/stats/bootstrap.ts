import { median, quantileSorted } from "simple-statistics";

/**
 * A percentile-bootstrap confidence interval for the % change of the median between two
 * independent samples (head against base): resample each side with replacement, take
 * (median(head*) / median(base*) - 1) * 100, and read the interval off the sorted replicates.
 * The generator is seeded, so the same inputs always give the same interval.
 */

/** mulberry32: a small, fast, seeded 32-bit generator (uniform in [0, 1)). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface BootstrapOptions {
  resamples?: number;
  confidence?: number;
  seed?: number;
}

export const DEFAULT_RESAMPLES = 10_000;
export const DEFAULT_SEED = 20260101;

function resampleMedian(values: readonly number[], random: () => number, scratch: number[]): number {
  for (let i = 0; i < values.length; i++) scratch[i] = values[Math.floor(random() * values.length)] ?? 0;
  return median(scratch);
}

/** [low, high] of the % change of the median, or undefined when a base median can be zero. */
export function bootstrapMedianChangeInterval(
  base: readonly number[],
  head: readonly number[],
  options: BootstrapOptions = {},
): [number, number] | undefined {
  if (base.length === 0 || head.length === 0) return undefined;
  if (base.some((v) => v <= 0)) return undefined;
  const resamples = options.resamples ?? DEFAULT_RESAMPLES;
  const confidence = options.confidence ?? 0.95;
  const random = seededRandom(options.seed ?? DEFAULT_SEED);
  const baseScratch = new Array<number>(base.length);
  const headScratch = new Array<number>(head.length);
  const changes: number[] = [];
  for (let i = 0; i < resamples; i++) {
    const b = resampleMedian(base, random, baseScratch);
    const h = resampleMedian(head, random, headScratch);
    changes.push((h / b - 1) * 100);
  }
  changes.sort((a, b) => a - b);
  const tail = (1 - confidence) / 2;
  return [quantileSorted(changes, tail), quantileSorted(changes, 1 - tail)];
}

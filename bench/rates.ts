/** Rates the benchmarks print: k of n, with a 95% Wilson score interval. */

/** 95% Wilson score interval of k successes in n. */
function wilson(k: number, n: number): [number, number] {
  if (n === 0) return [0, 1];
  const z = 1.959964;
  const p = k / n;
  const centre = (p + (z * z) / (2 * n)) / (1 + (z * z) / n);
  const half = (z / (1 + (z * z) / n)) * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n));
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

/** `label: k of n (p%, 95% Wilson lo%-hi%)`. */
export function rate(label: string, k: number, n: number): string {
  const [lo, hi] = wilson(k, n);
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  return `${label}: ${k} of ${n} (${pct(n ? k / n : 0)}, 95% Wilson ${pct(lo)}-${pct(hi)})`;
}

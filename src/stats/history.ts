import { median } from "simple-statistics";

/**
 * Two runs made at different times, judged against the spread between runs: the head run's
 * median among the medians of past runs of the same cell (and the base run's). Under "no
 * change" the head run is one more run like the others: the runs are exchangeable, and its
 * distance from their common median (log scale, computed over all of them, the head's
 * included) ranks uniformly among theirs. The p-value is the share of runs at least as far
 * out, the head's own included (a conformal p-value: P(p <= u) <= u for every u, with no
 * assumption on the shape of the spread). The smallest p with h runs beside the head is
 * 1 / (h + 1). Pure.
 */
export function historyP(head: number, reference: readonly number[]): number {
  const logs = [...reference, head].map(Math.log);
  const centre = median(logs);
  const far = Math.abs(Math.log(head) - centre);
  const asFar = logs.filter((x) => Math.abs(x - centre) >= far * (1 - 1e-12)).length;
  return asFar / logs.length;
}

/** Fewest reference runs for which the history test can reach p <= level. */
export function runsNeededFor(level: number): number {
  return Math.max(1, Math.ceil(1 / level - 1 - 1e-9));
}

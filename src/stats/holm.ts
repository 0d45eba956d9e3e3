/**
 * Holm's step-down procedure (Holm 1979): the p-values sorted from the smallest, the j-th (1-based)
 * compared with alpha / (m - j + 1), rejecting until the first that fails. It keeps the chance of
 * any false rejection among the m tests at alpha whatever their dependence, as Bonferroni does,
 * and rejects at least what Bonferroni (every p against alpha / m) rejects. Pure.
 */

export interface HolmOutcome {
  /** Per test, in the order given: rejected or not. */
  rejected: boolean[];
  /**
   * Per test, the level it was compared with: a rejected test its own step's alpha / (m - j + 1);
   * every other test the level of the step where the procedure stopped, alpha / (m - r) with r
   * rejections (no test that was not rejected is below it).
   */
  levels: number[];
}

export function holm(pValues: readonly number[], alpha: number): HolmOutcome {
  const m = pValues.length;
  const order = pValues.map((p, i) => ({ p, i })).sort((a, b) => a.p - b.p || a.i - b.i);
  const rejected = new Array<boolean>(m).fill(false);
  const levels = new Array<number>(m).fill(alpha);
  let step = 0;
  while (step < m) {
    const level = alpha / (m - step);
    const next = order[step]!;
    if (next.p > level) break;
    rejected[next.i] = true;
    levels[next.i] = level;
    step += 1;
  }
  const stoppedAt = step < m ? alpha / (m - step) : alpha;
  for (let k = step; k < m; k++) levels[order[k]!.i] = stoppedAt;
  return { rejected, levels };
}

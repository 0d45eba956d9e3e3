/** Number formatting shared by every report, comparison and comment (en-US digits, fixed decimals). */

/** en-US digits with exactly `decimals` decimals. */
const fixed = (decimals: number) =>
  new Intl.NumberFormat("en-US", { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
const integer = fixed(0);
const twoDecimals = fixed(2);

/** Requests per second: whole numbers from 100 up (crank's `322,349`), two decimals below. */
export function formatRps(value: number): string {
  return Math.abs(value) >= 100 ? integer.format(value) : twoDecimals.format(value);
}

/** Milliseconds with two decimals. */
export function formatMs(value: number): string {
  return twoDecimals.format(value);
}

/**
 * A count. A median of an even number of counts can be a half: whole from 100 up (a count of
 * requests reads `45,240`, not `45,239.50`), two decimals below (0.50 bad responses is not 1).
 */
export function formatCount(value: number): string {
  return Number.isInteger(value) || Math.abs(value) >= 100
    ? integer.format(value)
    : twoDecimals.format(value);
}

/** Fixed-decimal formats by their decimals (2 to 4: decimalsFor), made once. */
const fixedDecimals = new Map([2, 3, 4].map((d) => [d, fixed(d)]));

/** A signed value at `decimals` (2 to 4) decimals: `+1.10`, `-0.004`; one that rounds to 0 is `+0.00`. */
export function signed(value: number, decimals = 2): string {
  const rounded = Number(value.toFixed(decimals));
  const sign = rounded < 0 ? "-" : "+";
  return `${sign}${fixedDecimals.get(decimals)!.format(Math.abs(rounded))}`;
}

/**
 * The decimals (2 to 4) that write every one of `values` that is not 0 as other than 0, so that a
 * change and its interval never read `+0.00` where they are not: `-0.02 to -0.004`.
 */
export function decimalsFor(values: readonly number[]): number {
  const smallest = Math.min(...values.filter((v) => v !== 0 && Number.isFinite(v)).map(Math.abs));
  if (!Number.isFinite(smallest)) return 2;
  // v rounds to 0 at d decimals when v < 0.5 * 10^-d
  return Math.min(4, Math.max(2, Math.ceil(-Math.log10(2 * smallest))));
}

/** A signed % change with two decimals: `+48.63%`, `-32.83%`, `+0.00%`. */
export function formatPercent(value: number): string {
  return `${signed(value)}%`;
}

/** A p-value: three decimals, `<0.001` below that. */
export function formatPValue(p: number): string {
  return p < 0.001 ? "<0.001" : p.toFixed(3);
}

/** A confidence as a percentage: `95%`, `99.58%`. */
export function formatConfidence(confidence: number): string {
  const percent = confidence * 100;
  return `${Number.isInteger(percent) ? percent : percent.toFixed(2).replace(/0+$/, "")}%`;
}

/** A false-alarm rate in a sentence: 0.05, or 0.0083 for 0.05 shared by six. */
export function formatAlpha(alpha: number): string {
  return String(Number(alpha.toPrecision(2)));
}

/** `1 round`, `3 rounds`: a count and its noun. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** A wall time as a plan estimates it: `45s`, `1m05s`, `2h03m`. */
export function formatWallTime(seconds: number): string {
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = s % 60;
  return h > 0
    ? `${h}h${String(m).padStart(2, "0")}m`
    : m > 0
      ? `${m}m${String(rest).padStart(2, "0")}s`
      : `${rest}s`;
}

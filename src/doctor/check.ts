/** One finding of `proxybench doctor`: the machine's (checks.ts) or what a study or engine needs (needs.ts). */
type CheckLevel = "ok" | "warn" | "fail";
export interface Check {
  name: string;
  level: CheckLevel;
  detail: string;
  fix?: string;
  /** What needs it, and a failure stops: the default benchmark, a study named, every run. */
  neededBy?: string;
}

/** An ok check with its detail, or a warning with the problem's detail and fix. */
export function okOrWarn(
  name: string,
  ok: boolean,
  detail: string,
  problem: { detail: string; fix: string },
): Check {
  return ok ? { name, level: "ok", detail } : { name, level: "warn", ...problem };
}

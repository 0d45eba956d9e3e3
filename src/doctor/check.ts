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

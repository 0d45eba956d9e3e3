/**
 * The real 8-cell A/A of a pull request's comparison (`npm run bench:ab -- --real-pr N`):
 * direct, nginx, haproxy and caddy x passthrough and json-lookup, base and head the same
 * built-in manifests, `--repetitions auto --budget` at 1 s repetitions, run as two shards one
 * after the other (each a `proxybench run` of its own, under `flock LOCK` when --lock names
 * one, so no locked command holds the machine for long), then compared as one run. Prints the
 * verdicts, the rounds each block took and the wall time to the verdict. Asserts nothing.
 */
import { spawn } from "node:child_process";
import { mkdir, mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { compareVariants, type Comparison } from "../src/report/compare.js";
import { readResults } from "../src/results/io.js";
import { mergeResults } from "../src/results/merge.js";
import { PROJECT_ROOT } from "../src/util/paths.js";

const PROXIES = "direct,nginx,haproxy,caddy";
const SCENARIOS = "passthrough,json-lookup";

/** `proxybench ARGS` (under `flock LOCK` when given), its output to stderr; resolves to its exit code. */
export function command(args: string[], lock: string | undefined): Promise<number> {
  const cli = path.join(PROJECT_ROOT, "bin", "proxybench.js");
  const [file, argv] = lock
    ? ["flock", [lock, process.execPath, cli, ...args]]
    : [process.execPath, [cli, ...args]];
  return new Promise((resolve, reject) => {
    const child = spawn(file, argv, { stdio: ["ignore", "ignore", "inherit"] });
    child.on("error", reject);
    child.on("exit", (code) => resolve(code ?? 1));
  });
}

export interface RealPrOutcome {
  comparison: Comparison;
  seconds: number;
  /** Rounds each compared cell's pairs reached, by scenario. */
  rounds: Record<string, number>;
  notOk: string[];
}

/** One real 8-cell A/A: two shards under the budget each, compared as one run. */
export async function realPullRequest(
  budgetMinutes: number,
  lock: string | undefined,
): Promise<RealPrOutcome> {
  const root = await mkdtemp(path.join(os.tmpdir(), "proxybench-pr-"));
  for (const v of ["base", "head"]) await mkdir(path.join(root, v, "scenarios"), { recursive: true });
  const start = performance.now();
  const dirs: string[] = [];
  for (const shard of ["1/2", "2/2"]) {
    const out = path.join(root, `shard-${shard.replace("/", "-of-")}`);
    dirs.push(out);
    await command(
      [
        "run",
        ...["--proxies", PROXIES, "--scenarios", SCENARIOS, "--duration", "1"],
        ...["--variant", `base=${path.join(root, "base")}`, "--variant", `head=${path.join(root, "head")}`],
        ...["--repetitions", "auto", "--budget", String(budgetMinutes), "--shard", shard, "--out", out],
      ],
      lock,
    );
  }
  const seconds = (performance.now() - start) / 1000;
  const sources = await Promise.all(dirs.map(async (from) => ({ from, results: await readResults(from) })));
  const merged = mergeResults(sources);
  const comparison = compareVariants(merged);
  const rounds: Record<string, number> = {};
  for (const c of comparison.cells)
    rounds[c.scenario] = Math.max(rounds[c.scenario] ?? 0, ...c.metrics.map((m) => m.n));
  const notOk = merged.cells.filter((c) => c.status !== "ok").map((c) => `${c.id} ${c.status}`);
  return { comparison, seconds, rounds, notOk };
}

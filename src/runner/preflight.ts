import { constants } from "node:fs";
import { access, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { resolveImports } from "../engines/k6/script.js";
import type { EngineAdapter } from "../engines/types.js";
import type { LoadedScenario } from "../manifests/load.js";
import type { Engine, Settings } from "../results/schema.js";
import { UserError } from "../util/errors.js";
import { fileSize, findExecutable } from "../util/paths.js";
import { RESULTS_FILE } from "../results/io.js";
import { skippedName, type Plan } from "./plan.js";
import { nativeAvailability } from "./proxy-binary.js";

/**
 * Before a run creates anything: every tool, proxy binary and script file it needs is here.
 * A missing tool is one UserError with exit code 1 ("cannot run here") listing each one with the
 * command that installs it; a scenario script that cannot load is a bad input (exit code 2).
 */

export interface PreflightResult {
  /** Versions of the engines found (k6, wrk and the ones this run needs). */
  tools: Record<string, string>;
  /** Native proxy binaries of the run, by proxy name. */
  binaries: Map<string, { path: string; version: string }>;
}

/** The command that installs what an engine needs (scripts/setup.sh knows each one). */
export function engineSetupCommand(engine: Engine): string {
  return `npm run setup -- --engine ${engine}`;
}

export async function preflight(
  plan: Plan,
  settings: Pick<Settings, "runtime">,
  getEngine: (name: Engine) => EngineAdapter,
  which: (binary: string) => Promise<string | undefined> = findExecutable,
): Promise<PreflightResult> {
  const problems: string[] = [];
  const tools: Record<string, string> = {};
  const needed = new Set(plan.blocks.map((b) => b.engine));
  for (const engine of new Set<Engine>([...needed, "k6", "wrk"])) {
    try {
      tools[engine] = (await getEngine(engine).locate()).version;
    } catch (err) {
      if (needed.has(engine)) {
        problems.push(`${(err as Error).message} (or: ${engineSetupCommand(engine)})`);
      }
    }
  }
  if (!(await which("taskset"))) {
    problems.push("taskset not found (pins each process to its cores): sudo apt-get install util-linux");
  }
  const { binaries, missing } =
    settings.runtime === "native" ? await nativeBinaries(plan) : { binaries: new Map(), missing: [] };
  problems.push(...missing);
  if (problems.length > 0) {
    throw new UserError(`cannot run here, nothing was started:\n  ${problems.join("\n  ")}`, 1);
  }
  await checkScripts(plan);
  return { tools, binaries };
}

/** The plan's native proxy binaries by proxy name, and a line for each one missing with its fix. */
export async function nativeBinaries(
  plan: Plan,
): Promise<{ binaries: PreflightResult["binaries"]; missing: string[] }> {
  const binaries: PreflightResult["binaries"] = new Map();
  const missing: string[] = [];
  for (const proxy of new Set(plan.blocks.flatMap((b) => b.cells.map((c) => c.proxy)))) {
    const a = await nativeAvailability(proxy);
    if (a.kind === "found") binaries.set(proxy.manifest.name, { path: a.path, version: a.version });
    if (a.kind === "missing") missing.push(`${proxy.manifest.name}: '${a.binary}' not found: ${a.fix}`);
  }
  return { binaries, missing };
}

/**
 * What a new run (and its dry run) refuses before it starts: a results folder that already holds
 * a run, a plan with nothing to measure, a k6 script that cannot load. Resuming skips the first.
 */
export async function checkRunInputs(plan: Plan, dir: string | undefined): Promise<void> {
  if (dir !== undefined) await refuseUsedOut(dir);
  refuseEmptyPlan(plan);
  await checkScripts(plan);
}

/**
 * `--out` is a folder, or one a run can create: not a file, nor inside one, and writable. Told
 * before anything starts, not by the first write after the measuring.
 */
export async function refuseUnusableOut(dir: string): Promise<void> {
  let existing = dir;
  let info = await stat(existing).catch(() => undefined);
  while (info === undefined && path.dirname(existing) !== existing) {
    existing = path.dirname(existing);
    info = await stat(existing).catch(() => undefined);
  }
  if (info !== undefined && !info.isDirectory()) {
    const what = existing === dir ? "is a file" : `is inside ${existing}, a file`;
    throw new UserError(`--out ${dir}: ${what}, not a folder; choose a folder`);
  }
  await access(existing, constants.W_OK | constants.X_OK).catch((err: NodeJS.ErrnoException) => {
    throw new UserError(
      `--out ${dir}: cannot write in ${existing} (${err.code ?? err.message}); choose another --out`,
    );
  });
}

/**
 * A new run never writes over the results of another (`files`: the results files of a run),
 * nor into an `--out` it cannot use.
 */
export async function refuseUsedOut(
  dir: string,
  files = [RESULTS_FILE],
  next = `finish them with --resume ${dir} or choose another --out`,
): Promise<void> {
  await refuseUnusableOut(dir);
  for (const file of files) {
    if ((await fileSize(path.join(dir, file))) > 0)
      throw new UserError(`--out ${dir} already holds results; ${next}`);
  }
}

/** A plan whose every cell was skipped: the reasons, instead of an empty run. */
export function refuseEmptyPlan(plan: Plan): void {
  if (plan.blocks.some((b) => b.cells.length > 0)) return;
  throw new UserError(
    `nothing to run: ${plan.skipped.map((s) => `${skippedName(s)} (${s.reason})`).join(", ") || "no proxy selected"}`,
  );
}

/** Every k6 script of the plan loads: its relative imports exist (or come from the library). */
export async function checkScripts(plan: Plan): Promise<void> {
  const k6Scenarios = new Set(plan.blocks.filter((b) => b.engine === "k6").map((b) => b.scenario));
  for (const scenario of k6Scenarios) await checkScriptImports(scenario);
}

/**
 * A k6 script whose relative import does not exist fails only after k6 starts (exit 107): refuse
 * it first, naming the script and the file. An import of the scenario library (`../lib/...` in a
 * copied built-in scenario) resolves wherever the scenario lives (src/engines/k6/script.ts).
 */
export async function checkScriptImports(scenario: LoadedScenario): Promise<void> {
  const script = path.resolve(scenario.dir, scenario.manifest.script);
  const source = await readFile(script, "utf8").catch(() => undefined);
  if (source === undefined) {
    throw new UserError(`${scenario.file}: script: ${script} cannot be read`);
  }
  const [missing] = (await resolveImports(script, source)).missing;
  if (missing) {
    throw new UserError(
      `${script}: imports '${missing.spec}', which does not exist (${missing.target}): create it or fix the import`,
    );
  }
}

import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import type { EngineAdapter } from "../engines/types.js";
import type { LoadedScenario } from "../manifests/load.js";
import type { Engine, Settings } from "../results/schema.js";
import { UserError } from "../util/errors.js";
import { findExecutable, PROJECT_ROOT } from "../util/paths.js";
import type { Plan } from "./plan.js";
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
  const binaries = new Map<string, { path: string; version: string }>();
  if (settings.runtime === "native") {
    const proxies = new Set(plan.blocks.flatMap((b) => b.cells.map((c) => c.proxy)));
    for (const proxy of proxies) {
      const a = await nativeAvailability(proxy);
      if (a.kind === "found") binaries.set(proxy.manifest.name, { path: a.path, version: a.version });
      if (a.kind === "missing") {
        problems.push(`${proxy.manifest.name}: '${a.binary}' not found: sudo ${a.fix}`);
      }
    }
  }
  if (problems.length > 0) {
    throw new UserError(`cannot run here, nothing was started:\n  ${problems.join("\n  ")}`, 1);
  }
  const k6Scenarios = new Set(plan.blocks.filter((b) => b.engine === "k6").map((b) => b.scenario));
  for (const scenario of k6Scenarios) await checkScriptImports(scenario);
  return { tools, binaries };
}

/** Relative imports of a k6 script (`import ... from "./x.js"` or `"../lib/x.js"`). Pure. */
export function relativeImports(source: string): string[] {
  const found: string[] = [];
  for (const m of source.matchAll(/\bimport\s+(?:[^'"]*?\sfrom\s+)?["'](\.{1,2}\/[^"']+)["']/g)) {
    if (m[1]) found.push(m[1]);
  }
  return found;
}

/**
 * A k6 script whose relative import does not exist fails only after k6 starts (exit 107): refuse
 * it first, naming the scenario file and the fix. A built-in scenario copied elsewhere imports
 * `../lib/proxybench.js`, which then has to be imported from proxybench's own folder.
 */
export async function checkScriptImports(scenario: LoadedScenario): Promise<void> {
  const script = path.resolve(scenario.dir, scenario.manifest.script);
  const source = await readFile(script, "utf8").catch(() => undefined);
  if (source === undefined) {
    throw new UserError(`${scenario.file}: script: ${script} cannot be read`);
  }
  for (const spec of relativeImports(source)) {
    const target = path.resolve(path.dirname(script), spec);
    if (await exists(target)) continue;
    const shared = path.join(PROJECT_ROOT, "scenarios", "lib", path.basename(spec));
    const fix = (await exists(shared))
      ? `import it by its absolute path "${shared}", or copy proxybench's scenarios/lib next to the scenario's folder`
      : `create ${target}`;
    throw new UserError(`${script}: imports '${spec}', which does not exist (${target}): ${fix}`);
  }
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

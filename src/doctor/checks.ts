import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import os from "node:os";
import type { EngineAdapter } from "../engines/types.js";
import type { ManifestSet } from "../manifests/load.js";
import { Engine } from "../results/schema.js";
import { readGovernor } from "../environment/capture.js";
import { readTuning, type Tuning } from "../environment/tuning.js";
import { findExecutable } from "../util/paths.js";
import { okOrWarn, type Check } from "./check.js";
import { engineCheck } from "./needs.js";
import { byName } from "./listing.js";
import { DEFAULT_PROXIES } from "../runner/plan.js";
import { describeLeftover, findLeftovers, stopCommand, type Leftover } from "../runner/leftovers.js";
import { nativeAvailability } from "../runner/proxy-binary.js";
import { UPSTREAM_BIN, UPSTREAM_SRC } from "../runner/upstream.js";

/**
 * `proxybench doctor`: what a trustworthy run needs on this machine, each problem with its fix.
 * The evaluations are pure (table-tested); `runChecks` gathers the facts.
 */

const DEFAULT_BENCHMARK = "the default benchmark";
const EVERY_RUN = "every run";

const RECOMMENDED_NOFILE = 65535;

export function checkCores(cores: number): Check {
  return okOrWarn("cores", cores >= 2, `${cores}`, {
    detail: `${cores}: the load generator, proxy and upstream share it`,
    fix: "use a machine with 2 or more cores (4+ gives each role its own)",
  });
}

export function checkGovernor(governor: string | undefined): Check {
  if (governor === undefined) {
    return { name: "governor", level: "ok", detail: "not exposed (usually a VM: the host decides)" };
  }
  return okOrWarn("governor", governor === "performance", governor, {
    detail: `${governor}: clock speed changes with load, which adds noise`,
    fix: "sudo cpupower frequency-set -g performance  (or: echo performance | sudo tee /sys/devices/system/cpu/cpu*/cpufreq/scaling_governor)",
  });
}

/** irqbalance moves interrupts onto the pinned cores mid-run; SMT shares a core's units. */
export function checkTuning(tuning: Tuning): Check[] {
  const irqbalanceDetail = tuning.irqbalance === false ? "not running" : "unknown";
  return [
    okOrWarn("irqbalance", !tuning.irqbalance, irqbalanceDetail, {
      detail: "running: it moves interrupts onto the pinned cores during a run, which adds noise",
      fix: "sudo systemctl stop irqbalance for the benchmark (and pin the NIC's IRQs away from the proxy's cores)",
    }),
    okOrWarn("SMT", tuning.smt !== "on", tuning.smt ?? "unknown", {
      detail: "on: two pinned cores may be siblings of one physical core and measure each other",
      fix: "pin to cores of different physical cores (lscpu -e), or echo off | sudo tee /sys/devices/system/cpu/smt/control",
    }),
  ];
}

export function checkNofile(soft: number | undefined): Check {
  if (soft === undefined) return { name: "ulimit -n", level: "warn", detail: "unknown" };
  return okOrWarn("ulimit -n", soft >= RECOMMENDED_NOFILE, `${soft}`, {
    detail: `${soft}: below ${RECOMMENDED_NOFILE}, 1000 VUs through a proxy need about 2 descriptors each`,
    fix: `ulimit -n ${RECOMMENDED_NOFILE} in the shell that runs proxybench (permanently: 'nofile' in /etc/security/limits.conf)`,
  });
}

export function checkLoad(load1: number, cores: number): Check {
  const detail = `${load1.toFixed(2)} (1 min)`;
  return okOrWarn("load average", load1 <= Math.max(0.5, cores * 0.25), detail, {
    detail: `${detail} on ${cores} core(s): other work will disturb the figures`,
    fix: "stop other programs (builds, browsers, other benchmarks) and wait for the load to settle",
  });
}

/** Soft "Max open files" of /proc/self/limits. */
export function parseNofile(limits: string): number | undefined {
  const m = /^Max open files\s+(\d+|unlimited)/m.exec(limits);
  if (!m?.[1]) return undefined;
  return m[1] === "unlimited" ? Number.POSITIVE_INFINITY : Number(m[1]);
}

export interface DoctorDeps {
  manifests: ManifestSet;
  getEngine: (name: Engine) => EngineAdapter;
}

/** Every check, in the order shown. `needed` checks make doctor exit 1 when they fail. */
export async function runChecks(deps: DoctorDeps): Promise<Check[]> {
  // Every engine proxybench knows; k6 runs the default benchmark, the others only when asked.
  const checks: Check[] = [];
  for (const engine of Engine.options) {
    checks.push(
      engine === "k6"
        ? await engineCheck(engine, deps.getEngine, DEFAULT_BENCHMARK, "npm run setup")
        : await engineCheck(engine, deps.getEngine, undefined),
    );
  }
  for (const proxy of [...deps.manifests.proxies.values()].sort(byName)) {
    const a = await nativeAvailability(proxy);
    const name = proxy.manifest.name;
    if (a.kind === "found") checks.push({ name, level: "ok", detail: `${a.version} (${a.path})` });
    if (a.kind === "missing") {
      const needed = DEFAULT_PROXIES.includes(name);
      checks.push({
        name,
        level: needed ? "fail" : "warn",
        detail: `'${a.binary}' not found${needed ? ` (needed by ${DEFAULT_BENCHMARK})` : ""}`,
        fix: a.fix,
        ...(needed ? { neededBy: DEFAULT_BENCHMARK } : {}),
      });
    }
  }
  checks.push(
    everyRunNeeds("taskset", await findExecutable("taskset"), {
      detail: "not found (pins each process to its cores)",
      fix: "sudo apt-get install util-linux",
    }),
  );
  checks.push(await upstreamCheck());
  const cores = Math.max(1, os.cpus().length);
  checks.push(checkCores(cores));
  checks.push(checkGovernor(await readGovernor()));
  checks.push(...checkTuning(await readTuning()));
  checks.push(checkNofile(parseNofile(await readFile("/proc/self/limits", "utf8").catch(() => ""))));
  checks.push(checkLoad(os.loadavg()[0] ?? 0, cores));
  checks.push(checkLeftovers(findLeftovers()));
  return checks;
}

/** Processes that earlier runs left running (a run killed outright): each named, and the command that stops them. */
export function checkLeftovers(leftovers: readonly Leftover[]): Check {
  if (leftovers.length === 0) return { name: "leftovers", level: "ok", detail: "none from earlier runs" };
  return {
    name: "leftovers",
    level: "warn",
    detail: `${leftovers.length} process group(s) that earlier runs left running: ${leftovers.map(describeLeftover).join("; ")}`,
    fix: `${stopCommand(leftovers)}  (or run --resume with their results folder, which stops them first)`,
  };
}

async function upstreamCheck(): Promise<Check> {
  if (existsSync(UPSTREAM_BIN)) return { name: "upstream", level: "ok", detail: UPSTREAM_BIN };
  const go = (await findExecutable("go")) ?? (await findExecutable("/usr/local/go/bin/go"));
  if (go && existsSync(`${UPSTREAM_SRC}/go.mod`))
    return { name: "upstream", level: "ok", detail: "not built yet; the first run builds it with Go" };
  return everyRunNeeds("upstream", undefined, { detail: `${UPSTREAM_BIN} not found`, fix: "npm run setup" });
}

/** What every run needs: ok where it is (the detail), else a failure with its fix. */
function everyRunNeeds(
  name: string,
  found: string | undefined,
  missing: { detail: string; fix: string },
): Check {
  return found
    ? { name, level: "ok", detail: found }
    : { name, level: "fail", ...missing, neededBy: EVERY_RUN };
}

/** Pure: one line per check, the fix indented below each problem. */
export function renderChecks(checks: Check[]): string {
  const mark: Record<Check["level"], string> = { ok: "ok  ", warn: "warn", fail: "FAIL" };
  const lines: string[] = [];
  for (const c of checks) {
    lines.push(`${mark[c.level]}  ${c.name.padEnd(14)} ${c.detail}`);
    if (c.fix && c.level !== "ok") {
      for (const [i, l] of c.fix.split("\n").entries())
        lines.push(`      ${i === 0 ? "fix: " : "     "}${l}`);
    }
  }
  const fails = checks.filter((c) => c.level === "fail");
  const warns = checks.filter((c) => c.level === "warn").length;
  // What the failures stop, and what was checked: the default benchmark, and a study or engine named.
  const stopped = [...new Set(fails.map((c) => c.neededBy ?? DEFAULT_BENCHMARK))];
  const checked = [...new Set([DEFAULT_BENCHMARK, ...checks.flatMap((c) => c.neededBy ?? [])])];
  lines.push("");
  lines.push(
    fails.length > 0
      ? `${fails.length} problem(s) stop ${stopped.join(", ")}, ${warns} warning(s).`
      : `Ready for ${checked.filter((c) => c !== EVERY_RUN).join(", ")}${warns > 0 ? ` (${warns} warning(s) that may add noise)` : ""}.`,
  );
  return lines.join("\n");
}

export function doctorExitCode(checks: Check[]): number {
  return checks.some((c) => c.level === "fail") ? 1 : 0;
}

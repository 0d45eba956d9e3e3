import os from "node:os";
import path from "node:path";
import type { Settings } from "../results/schema.js";
import { PRIMARY_METRICS } from "../stats/tested-metrics.js";
import { UserError } from "../util/errors.js";
import { pickDefined } from "../util/objects.js";
import { defaultCpuLayout, formatCpuLayout, layoutWarnings, parseCpuLayout } from "./cpus.js";
import {
  checkResumeFlags,
  DEFAULT_PROXIES,
  DEFAULT_REPETITIONS,
  DEFAULT_SCENARIOS,
  type ResumeFlags,
} from "./plan.js";

/**
 * What `proxybench run` was asked, flags already split and typed (`--variant` and `--shard`
 * parsed; `--tls`: every scenario also over TLS on the client side of the proxies); undefined:
 * not given.
 */
export type RunRequest = Omit<ResumeFlags, "cpus"> & {
  /** `--repetitions auto` (variant runs): rounds planned to reach a verdict (src/stats/sequential.ts). */
  autoRounds?: boolean;
  /** `--budget MINUTES` with `--repetitions auto`: more rounds, at planned looks, while a metric is undecided. */
  budgetMinutes?: number;
  /** `--target PCT` with `--repetitions auto`: the change at 80% power the rounds aim for. */
  targetPct?: number;
  /** The `--cpus` text. */
  cpus?: string;
  out?: string;
  resume?: string;
};

/** Rounds of a variant run by default: enough for a verdict over a default matrix at alpha 0.05. */
const DEFAULT_VARIANT_ROUNDS = 10;

export interface ResolvedSettings {
  settings: Settings;
  /** How the CPU layout was chosen, for the first line of output. */
  layoutNote: string;
  warnings: string[];
}

export function coreCount(): number {
  return Math.max(1, os.availableParallelism?.() ?? os.cpus().length);
}

/** `--repetitions auto` and `--budget`: only for variant runs, the budget only with auto; `--seed` only with random. */
function checkRounds(req: RunRequest): void {
  if (req.autoRounds && !req.variants?.length) {
    throw new UserError("--repetitions auto goes with --variant: it sizes the rounds of a comparison");
  }
  if (req.budgetMinutes !== undefined && !req.autoRounds) {
    throw new UserError("--budget goes with --repetitions auto");
  }
  if (req.targetPct !== undefined && !req.autoRounds) {
    throw new UserError("--target goes with --repetitions auto");
  }
  if (req.seed !== undefined && req.roundOrder === "abba") {
    throw new UserError("--seed goes with --round-order random (abba draws nothing)");
  }
}

/** The settings once the rounds are planned: as many repetitions as the last look, and the plan. */
export function withRoundsPlan(settings: Settings, plan: NonNullable<Settings["sequential"]>): Settings {
  return { ...settings, repetitions: plan.looks[plan.looks.length - 1]!.rounds, sequential: plan };
}

/** The settings of a new run: flags, else defaults (the default CPU layout from the core count). */
export function resolveSettings(req: RunRequest, cores: number): ResolvedSettings {
  checkRounds(req);
  const asked = req.cpus === undefined ? undefined : parseCpuLayout(req.cpus, cores);
  const { layout: cpus, warnings } = asked
    ? { layout: asked, warnings: layoutWarnings(asked) }
    : defaultCpuLayout(cores);
  const layoutNote = asked
    ? "from --cpus"
    : `default for ${cores} core${cores === 1 ? "" : "s"}; change with --cpus`;
  const settings: Settings = {
    proxies: req.proxies ?? DEFAULT_PROXIES,
    scenarios: req.scenarios ?? DEFAULT_SCENARIOS,
    // auto: a placeholder until the plan is known (withRoundsPlan)
    repetitions: req.repetitions ?? (req.variants?.length ? DEFAULT_VARIANT_ROUNDS : DEFAULT_REPETITIONS),
    cpus,
    runtime: req.runtime ?? "native",
    proxyLifetime: "round",
    testedMetrics: [...PRIMARY_METRICS],
    roundOrder: "random",
    ...requestedSettings(req),
  };
  if (settings.roundOrder === "random" && settings.seed === undefined) {
    settings.seed = Math.floor(Math.random() * 2 ** 31);
  }
  return { settings, layoutNote, warnings };
}

/** The settings of a resumed run: the recorded ones; a flag that says otherwise is an error. */
export function resolveResumeSettings(recorded: Settings, req: RunRequest, cores: number): ResolvedSettings {
  if (req.out !== undefined)
    throw new UserError("--resume: --out cannot be combined with --resume (it writes into DIR)");
  if ((req.autoRounds || req.budgetMinutes !== undefined) && recorded.sequential === undefined) {
    throw new UserError(
      "--resume: this run has fixed repetitions; --repetitions auto and --budget cannot be added",
    );
  }
  const flags: ResumeFlags = {
    ...pickDefined(req, ["proxies", "scenarios", "repetitions", "runtime"]),
    ...(req.cpus !== undefined ? { cpus: parseCpuLayout(req.cpus, cores) } : {}),
    ...requestedSettings(req),
  };
  checkResumeFlags(recorded, flags);
  const missing = [...recorded.cpus.loadgen, ...recorded.cpus.proxy, ...recorded.cpus.upstream].filter(
    (c) => c >= cores,
  );
  if (missing.length > 0) {
    throw new UserError(
      `--resume: the recorded layout ${formatCpuLayout(recorded.cpus)} uses core ${missing[0]}, which this machine does not have`,
    );
  }
  return { settings: recorded, layoutNote: "as recorded", warnings: [] };
}

/** The settings a request gives as they are, for a new run and against a resumed one's. */
function requestedSettings(req: RunRequest): Partial<Settings> {
  return {
    ...pickDefined(req, ["engine", "durationS", "warmupS", "loads"]),
    ...(req.imageTag ? { imageTag: req.imageTag } : {}), // an empty --image-tag is none
    ...(req.proxiesDirs?.length ? { proxiesDirs: req.proxiesDirs.map((d) => path.resolve(d)) } : {}),
    ...(req.scenariosDirs?.length ? { scenariosDirs: req.scenariosDirs.map((d) => path.resolve(d)) } : {}),
    ...(req.variants?.length ? { variants: req.variants } : {}),
    ...pickDefined(req, [
      "noiseLimit",
      "retries",
      "roundOrder",
      "seed",
      "proxyLifetime",
      "testedMetrics",
      "shard",
    ]),
    ...(req.tls === true ? { tls: true } : {}),
  };
}

/** results/YYYYMMDD-HHMMSS (UTC), the default --out. */
export function defaultOutDir(now: Date, cwd = process.cwd()): string {
  return path.join(cwd, "results", runStamp(now));
}

export function runStamp(now: Date): string {
  const iso = now.toISOString(); // 2026-11-21T13:31:21.123Z
  return `${iso.slice(0, 10).replaceAll("-", "")}-${iso.slice(11, 19).replaceAll(":", "")}`;
}

/** DIR for `--resume DIR`: relative when inside the working folder, else absolute (never `../..`). */
export function resumePath(dir: string, cwd = process.cwd()): string {
  const relative = path.relative(cwd, dir);
  if (relative === "") return ".";
  return relative.startsWith("..") || path.isAbsolute(relative) ? path.resolve(dir) : relative;
}

import { mkdir, rm } from "node:fs/promises";
import path from "node:path";
import { logTail } from "../util/logs.js";
import { startProcess, type StartOptions } from "../util/processes.js";
import { CpuSampler } from "./cpu.js";
import type { EngineFigures, EngineInvocation, EngineMeasurement } from "./types.js";
import { pickDefined, withoutUndefined } from "../util/objects.js";
import { UserError } from "../util/errors.js";

type EngineProcessOptions = Pick<StartOptions, "command" | "args" | "cwd"> & {
  env: Record<string, string>;
  /** stdout and stderr of the engine (kept as a raw output). */
  logFile: string;
  /** Seconds it may take in all before it is stopped: a hung engine must not hang the run. */
  limitS: number;
};

export type EngineProcessResult = Pick<EngineMeasurement, "exitCode" | "loadgenCpu" | "loadgenCoresBusy"> & {
  aborted: boolean;
  timedOut: boolean;
};

/**
 * Runs a load generator (named `tool <scenario>` in logs) pinned to the invocation's cores,
 * sampling its CPU, until it exits, runs past its limit or the invocation's signal aborts it.
 */
export async function runEngineProcess(
  tool: string,
  inv: EngineInvocation,
  options: EngineProcessOptions,
): Promise<EngineProcessResult> {
  if (inv.signal?.aborted) return { exitCode: null, aborted: true, timedOut: false };
  const proc = await startProcess({ ...options, name: `${tool} ${inv.scenario.name}`, cpus: inv.cpus });
  const sampler = proc.pid === undefined ? undefined : new CpuSampler(proc.pid, inv.cpus);
  let aborted = false;
  let timedOut = false;
  const onAbort = () => {
    aborted = true;
    void proc.stop();
  };
  inv.signal?.addEventListener("abort", onAbort, { once: true });
  const timer = setTimeout(() => {
    timedOut = true;
    void proc.stop(1000);
  }, options.limitS * 1000);
  try {
    const exit = await proc.exited;
    const cpu = (await sampler?.stop()) ?? {};
    return {
      exitCode: exit.code,
      aborted,
      timedOut,
      ...withoutUndefined({ loadgenCpu: cpu.process, loadgenCoresBusy: cpu.coresBusy }),
    };
  } finally {
    clearTimeout(timer);
    inv.signal?.removeEventListener("abort", onAbort);
    await sampler?.stop();
  }
}

/** Why an exit that was not 0 failed the run, from its log (undefined: it did not). */
type ExitError = (exitCode: number | null, logFile: string) => Promise<string | undefined>;

/**
 * What every measurement of a run carries: its exit code, the load generator's CPU and its
 * errors, why the run is not trustworthy as a run: interrupted, stopped at its limit, or an exit
 * that was not 0 (by default with the last lines of its log).
 */
export async function runFields(
  tool: string,
  result: EngineProcessResult,
  options: Pick<EngineProcessOptions, "limitS" | "logFile">,
  exitError: ExitError = (code, logFile) => failedExit(tool, code, logFile),
): Promise<Pick<EngineMeasurement, "exitCode" | "engineErrors" | "loadgenCpu" | "loadgenCoresBusy">> {
  const errors: string[] = [];
  if (result.aborted) errors.push("the run was interrupted");
  if (result.timedOut) errors.push(`${tool} did not finish within ${options.limitS} s and was stopped`);
  if (result.exitCode !== 0 && !result.aborted && !result.timedOut) {
    const error = await exitError(result.exitCode, options.logFile);
    if (error !== undefined) errors.push(error);
  }
  return {
    exitCode: result.exitCode,
    engineErrors: errors,
    ...pickDefined(result, ["loadgenCpu", "loadgenCoresBusy"]),
  };
}

async function failedExit(tool: string, exitCode: number | null, logFile: string): Promise<string> {
  const tail = await logTail(logFile, 2);
  const how = exitCode === null ? `${tool} was killed by a signal` : `${tool} exited with code ${exitCode}`;
  return tail ? `${how}: ${tail}` : how;
}

/**
 * The raw files of one run, `<stem>.<suffix>` each in the invocation's folder (made if needed),
 * none left from an earlier run with the same stem: `names` as `raw` lists them, `file` their paths.
 */
export async function freshRunFiles<K extends string>(
  inv: Pick<EngineInvocation, "outDir" | "fileStem">,
  suffixes: Record<K, string>,
): Promise<{ names: Record<K, string>; file: (key: K) => string }> {
  await mkdir(inv.outDir, { recursive: true });
  const keys = Object.keys(suffixes) as K[];
  const names = {} as Record<K, string>;
  for (const k of keys) names[k] = `${inv.fileStem}.${suffixes[k]}`;
  const file = (key: K) => path.resolve(inv.outDir, names[key]);
  await Promise.all(keys.map((k) => rm(file(k), { force: true })));
  return { names, file };
}

/** What `read` finds in an engine's output file, or why it found nothing (`missing`: no such file). */
export async function readFigures<F extends EngineFigures>(
  file: string,
  read: (file: string) => Promise<F>,
): Promise<{ figures: F } | { missing: boolean; error: string }> {
  try {
    return { figures: await read(file) };
  } catch (err) {
    return {
      missing: (err as NodeJS.ErrnoException).code === "ENOENT",
      error: err instanceof UserError ? err.message : `${file}: ${String(err)}`,
    };
  }
}

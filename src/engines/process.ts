import { logTail } from "../util/logs.js";
import { startProcess } from "../util/processes.js";
import { CpuSampler } from "./cpu.js";
import type { EngineInvocation } from "./types.js";
import { pickDefined, withoutUndefined } from "../util/objects.js";

export interface EngineProcessOptions {
  name: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  cpus: number[];
  /** stdout and stderr of the engine (kept as a raw output). */
  logFile: string;
  /** Killed after this long: a hung engine must not hang the run. */
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface EngineProcessResult {
  exitCode: number | null;
  loadgenCpu?: number;
  loadgenCoresBusy?: number;
  aborted: boolean;
  timedOut: boolean;
}

/** What an engine's process takes from its invocation: its name in logs, its cores, the run's abort signal. */
export function invocationProcess(
  tool: string,
  inv: EngineInvocation,
): Pick<EngineProcessOptions, "name" | "cpus" | "signal"> {
  return { name: `${tool} ${inv.scenario.name}`, cpus: inv.cpus, ...pickDefined(inv, ["signal"]) };
}

/** Runs a load generator pinned to its cores, sampling its CPU, until it exits, times out or is aborted. */
export async function runEngineProcess(options: EngineProcessOptions): Promise<EngineProcessResult> {
  if (options.signal?.aborted) return { exitCode: null, aborted: true, timedOut: false };
  const proc = await startProcess({
    name: options.name,
    command: options.command,
    args: options.args,
    env: options.env,
    cwd: options.cwd,
    cpus: options.cpus,
    logFile: options.logFile,
  });
  const sampler = proc.pid === undefined ? undefined : new CpuSampler(proc.pid, options.cpus);
  let aborted = false;
  let timedOut = false;
  const onAbort = () => {
    aborted = true;
    void proc.stop();
  };
  options.signal?.addEventListener("abort", onAbort, { once: true });
  const timer = setTimeout(() => {
    timedOut = true;
    void proc.stop(1000);
  }, options.timeoutMs);
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
    options.signal?.removeEventListener("abort", onAbort);
    await sampler?.stop();
  }
}

/** The CPU figures of a run, as optional measurement fields. */
export function cpuFields(result: EngineProcessResult): { loadgenCpu?: number; loadgenCoresBusy?: number } {
  return pickDefined(result, ["loadgenCpu", "loadgenCoresBusy"]);
}

/**
 * Why an engine's run is not trustworthy as a run: interrupted, stopped after `limitS` seconds,
 * or an exit that was not 0 (with the last lines of its log).
 */
export async function engineProcessErrors(
  tool: string,
  result: EngineProcessResult,
  limitS: number,
  logFile: string,
): Promise<string[]> {
  const errors: string[] = [];
  if (result.aborted) errors.push("the run was interrupted");
  if (result.timedOut) errors.push(`${tool} did not finish within ${limitS} s and was stopped`);
  if (result.exitCode !== 0 && !result.aborted && !result.timedOut) {
    const tail = await logTail(logFile, 2);
    const how =
      result.exitCode === null
        ? `${tool} was killed by a signal`
        : `${tool} exited with code ${result.exitCode}`;
    errors.push(tail ? `${how}: ${tail}` : how);
  }
  return errors;
}

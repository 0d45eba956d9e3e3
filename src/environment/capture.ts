import { readFile } from "node:fs/promises";
import os from "node:os";
import type { Environment } from "../results/schema.js";
import { findExecutable } from "../util/paths.js";
import { execOutput } from "./exec.js";
import { readStealAccounting } from "./steal-accounting.js";
import { readTuning } from "./tuning.js";
import {
  ciFromEnv,
  gitFromEnv,
  parseCpuModel,
  parseGitLog,
  parseOsRelease,
  parseToolVersion,
} from "./parse.js";

/**
 * The machine a run happened on: CPU, cores, memory, kernel, OS, governor, SMT, boost and
 * interrupt placement (./tuning.ts), whether the proxy's CPU time leaves the hypervisor's steal
 * out (./steal-accounting.ts), load average before
 * the run, versions of the tools and proxies, and the git commit of the current directory.
 */
export async function captureEnvironment(options: {
  tools?: Record<string, string>;
  proxies?: Record<string, string>;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}): Promise<Environment> {
  const env = options.env ?? process.env;
  const [osName, cpuModel, governor, tuning, git, taskset, stealAccounting] = await Promise.all([
    readFile("/etc/os-release", "utf8").then(parseOsRelease, () => undefined),
    readFile("/proc/cpuinfo", "utf8").then(parseCpuModel, () => undefined),
    readGovernor(),
    readTuning(),
    gitInfo(options.cwd ?? process.cwd(), env),
    toolVersion("taskset", ["--version"]),
    os.platform() === "linux" ? readStealAccounting() : undefined,
  ]);
  const load = os.loadavg();
  const ci = ciFromEnv(env);
  return {
    hostname: os.hostname(),
    os: osName ?? `${os.type()} ${os.release()}`,
    kernel: os.release(),
    arch: os.arch(),
    cpuModel: cpuModel ?? os.cpus()[0]?.model ?? "unknown",
    cores: Math.max(1, os.cpus().length),
    memoryBytes: os.totalmem(),
    ...(governor ? { governor } : {}),
    ...(Object.keys(tuning).length > 0 ? { tuning } : {}),
    ...(stealAccounting ? { stealAccounting } : {}),
    loadAverage: [load[0] ?? 0, load[1] ?? 0, load[2] ?? 0],
    node: process.version,
    tools: { ...(taskset ? { taskset } : {}), ...options.tools },
    proxies: { ...options.proxies },
    git,
    ...(ci ? { ci } : {}),
  };
}

/** The scaling governor of cpu0, when the machine exposes one (VMs often do not). */
export async function readGovernor(): Promise<string | undefined> {
  return readFile("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "utf8").then(
    (t) => t.trim() || undefined,
    () => undefined,
  );
}

async function toolVersion(name: string, args: string[]): Promise<string | undefined> {
  const found = await findExecutable(name);
  if (!found) return undefined;
  const { output } = await execOutput(found, args, { timeoutMs: 5000 });
  return parseToolVersion(output);
}

async function gitInfo(cwd: string, env: NodeJS.ProcessEnv): Promise<Environment["git"]> {
  const fromEnv = gitFromEnv(env);
  const git = await findExecutable("git");
  if (!git) return fromEnv;
  const run = (args: string[]) => execOutput(git, args, { cwd, timeoutMs: 5000 });
  const log = await run(["log", "-1", "--format=%H%x00%an%x00%ae%x00%cI%x00%s"]);
  if (log.code !== 0) return fromEnv;
  const [branch, status] = await Promise.all([
    run(["rev-parse", "--abbrev-ref", "HEAD"]),
    run(["status", "--porcelain"]),
  ]);
  const b = branch.output.trim();
  return {
    ...parseGitLog(log.output),
    ...(branch.code === 0 && b && b !== "HEAD" ? { branch: b } : {}),
    ...(status.code === 0 ? { dirty: status.output.trim() !== "" } : {}),
    ...fromEnv,
  };
}

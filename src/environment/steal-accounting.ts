import { readFile } from "node:fs/promises";
import os from "node:os";
import { gunzipSync } from "node:zlib";
import type { StealAccounting } from "../results/schema.js";

/**
 * Whether the kernel takes the hypervisor's stolen time off a task's run time. With
 * CONFIG_PARAVIRT_TIME_ACCOUNTING=y (and no `no-steal-acc` on its command line) the scheduler's
 * task clock skips the time the vCPU was not running, so every CPU time read from it leaves steal
 * out: a thread's /proc/PID/task/TID/schedstat run time (the native proxy's CPU), a cgroup's
 * cpuacct.usage or cpu.stat usage_usec (a container's), and utime + stime, which the kernel
 * scales to that run time. Without it, a task charged with a tick or a run-time span also holds
 * what the hypervisor took from it. `npm run bench:steal` measures it on a machine.
 */

const OPTION = "CONFIG_PARAVIRT_TIME_ACCOUNTING";

/** The value of a kernel config option in a .config text: `y`, `m`, a string, `n` when "is not set" (pure). */
export function kernelConfigOption(config: string, option: string): string | undefined {
  for (const line of config.split("\n")) {
    if (line.trim() === `# ${option} is not set`) return "n";
    const m = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (m?.[1] === option) return m[2];
  }
  return undefined;
}

/** Steal accounting from the kernel's config text and command line; either may be unknown (pure). */
export function stealAccountingOf(config: string | undefined, cmdline: string | undefined): StealAccounting {
  if (config === undefined) return "unknown";
  const option = kernelConfigOption(config, OPTION);
  if (option === undefined) return "unknown";
  if (option !== "y") return "included";
  if (cmdline === undefined) return "unknown";
  return /(^|\s)no-steal-acc(\s|$)/.test(cmdline) ? "included" : "excluded";
}

/** The running kernel's config: /proc/config.gz, else /boot/config-RELEASE; undefined when neither reads. */
export async function readKernelConfig(): Promise<string | undefined> {
  const text = await readFile("/proc/config.gz")
    .then((gz) => String(gunzipSync(gz)))
    .catch(() => undefined);
  return text ?? readFile(`/boot/config-${os.release()}`, "utf8").catch(() => undefined);
}

/** This machine's steal accounting (Linux); `unknown` where the kernel's config cannot be read. */
export async function readStealAccounting(): Promise<StealAccounting> {
  const [config, cmdline] = await Promise.all([
    readKernelConfig(),
    readFile("/proc/cmdline", "utf8").catch(() => undefined),
  ]);
  return stealAccountingOf(config, cmdline);
}

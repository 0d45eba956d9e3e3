/**
 * What the hypervisor's steal does to the figures proxybench reads, measured on this machine
 * (`npm run bench:steal`). Prints figures; asserts nothing. On each core in turn, a busy loop
 * (a Node process spinning on its clock, pinned with taskset) runs for `--seconds`; over the
 * same window are read:
 * - wall: the window's length;
 * - run and wait: the sum over the loop's threads of /proc/PID/task/TID/schedstat (time run on
 *   the CPU, time waiting on the run queue), ns: what a native proxy's CPU time is read from;
 * - utime + stime of /proc/PID/stat (ticks of 10 ms);
 * - the usage of a cgroup holding only the loop (cgroup v1 cpuacct.usage, v2 cpu.stat
 *   usage_usec): what a container's CPU time is read from; left out when one cannot be made;
 * - the core's steal and busy time in /proc/stat (ticks), what the noise check reads;
 * - the loop's own view: every gap between two readings of its clock of `--gap-us` or more is
 *   time it did not run (an interrupt, another task, or the hypervisor running something else),
 *   what a request in flight on that core would wait.
 * With CONFIG_PARAVIRT_TIME_ACCOUNTING=y the run time leaves the steal out: wall - run - wait
 * (time the loop was neither run nor waiting for its turn) is the steal plus interrupts, and the
 * gaps hold it. The kernel's option is printed first (src/environment/steal-accounting.ts).
 * Steal cannot be made from inside a guest: on a quiet host it measures near 0, and the figures
 * then show the accounting with nothing stolen.
 *
 *   npm run bench:steal -- [--seconds S] [--cores 0,1] [--gap-us US]
 *   (defaults 5, every core, 20)
 *
 * Bounded: `--seconds` per core, plus the loop's start (well under a second each).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdir, readdir, readFile, rmdir, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import {
  kernelConfigOption,
  readKernelConfig,
  readStealAccounting,
} from "../src/environment/steal-accounting.js";
import { parseCount } from "../src/runner/cgroup-peak.js";
import { parseCgroupMounts, parseCpuStatNs } from "../src/runner/cgroup-usage.js";
import { parseStat, TICKS_PER_SECOND } from "../src/util/proc-stat.js";
import { pinnedCommand } from "../src/util/processes.js";

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i < 0 ? fallback : (process.argv[i + 1] ?? "");
}

const SECONDS = Number(option("--seconds", "5"));
const GAP_US = Number(option("--gap-us", "20"));
const CORES = option("--cores", [...os.cpus().keys()].join(","))
  .split(",")
  .map(Number);
if (!(SECONDS > 0) || !(GAP_US > 0) || CORES.some((c) => !Number.isInteger(c) || c < 0)) {
  throw new Error("--seconds and --gap-us: positive numbers; --cores: core numbers joined by commas");
}

/** The busy loop: says `ready`, spins for its time noting every gap, prints them, waits for stdin's end. */
const LOOP = `
const [ms, gapUs] = process.argv.slice(1).map(Number);
const gap = BigInt(Math.round(gapUs * 1000));
process.stdout.write("ready\\n");
const end = process.hrtime.bigint() + BigInt(Math.round(ms * 1e6));
const gaps = [];
let last = process.hrtime.bigint();
for (;;) {
  const now = process.hrtime.bigint();
  if (now - last >= gap) gaps.push(Number(now - last));
  last = now;
  if (now >= end) break;
}
process.stdout.write(JSON.stringify(gaps) + "\\n");
process.stdin.on("data", () => {}).on("end", () => process.exit(0));
`;

interface Reading {
  /** The middle of the reads, ms. */
  at: number;
  runNs: number;
  loopRunNs: number;
  waitNs: number;
  ticks: number;
  cgroupNs?: number;
  core: { busy: number; steal: number; irq: number };
}

/** The fields of one core's /proc/stat line, in ticks. */
async function coreTicks(core: number): Promise<Reading["core"]> {
  const line = (await readFile("/proc/stat", "utf8")).split("\n").find((l) => l.startsWith(`cpu${core} `));
  const f = (line ?? "").trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal
  return { busy: f[0]! + f[1]! + f[2]!, irq: f[5]! + f[6]!, steal: f[7]! };
}

/**
 * From /proc/PID/task/TID/schedstat, ns: the run time of every thread of a process (what a native
 * proxy's CPU is read as), and the run and run-queue wait of the thread that spins.
 */
async function schedstat(pid: number): Promise<{ runNs: number; loopRunNs: number; waitNs: number }> {
  const fields = async (tid: string) =>
    (await readFile(`/proc/${pid}/task/${tid}/schedstat`, "utf8").catch(() => "0 0"))
      .trim()
      .split(/\s+/)
      .map(Number);
  const threads = await Promise.all((await readdir(`/proc/${pid}/task`)).map(fields));
  const loop = await fields(String(pid));
  return {
    runNs: threads.reduce((s, f) => s + (f[0] ?? 0), 0),
    loopRunNs: loop[0] ?? 0,
    waitNs: loop[1] ?? 0,
  };
}

async function reading(pid: number, core: number, cgroup?: Cgroup): Promise<Reading> {
  const start = performance.now();
  const [sched, stat, ticks, cgroupNs] = await Promise.all([
    schedstat(pid),
    readFile(`/proc/${pid}/stat`, "utf8").then(parseStat),
    coreTicks(core),
    cgroup?.usageNs(),
  ]);
  return {
    at: (start + performance.now()) / 2,
    ...sched,
    ticks: stat?.ticks ?? NaN,
    core: ticks,
    ...(cgroupNs !== undefined ? { cgroupNs } : {}),
  };
}

interface Cgroup {
  usageNs(): Promise<number | undefined>;
  remove(): Promise<void>;
}

/** A cgroup of its own for the loop (cgroup v1 cpuacct, else v2); undefined when one cannot be made. */
async function cgroupFor(pid: number): Promise<Cgroup | undefined> {
  const mounts = parseCgroupMounts(await readFile("/proc/self/mountinfo", "utf8"));
  const v1 = mounts.find((m) => m.version === 1 && m.controllers.includes("cpuacct"));
  const mount = v1 ?? mounts.find((m) => m.version === 2);
  if (mount === undefined) return undefined;
  const dir = path.join(mount.mountPoint, `proxybench-steal-${process.pid}`);
  try {
    await mkdir(dir);
    await writeFile(path.join(dir, "cgroup.procs"), String(pid));
  } catch {
    await rmdir(dir).catch(() => undefined);
    return undefined;
  }
  const read = (file: string) => readFile(path.join(dir, file), "utf8").catch(() => "");
  return {
    usageNs: async () =>
      v1 ? parseCount(await read("cpuacct.usage")) : parseCpuStatNs(await read("cpu.stat")),
    remove: async () => {
      // Back to the parent cgroup first: a cgroup with a process in it cannot be removed.
      await writeFile(path.join(mount.mountPoint, "cgroup.procs"), String(pid)).catch(() => undefined);
      await rmdir(dir).catch(() => undefined);
    },
  };
}

/** The next line the loop prints. */
function nextLine(child: ChildProcess): Promise<string> {
  const lines = createInterface({ input: child.stdout! });
  return new Promise((resolve, reject) => {
    lines.once("line", (line) => {
      lines.close();
      resolve(line);
    });
    child.once("exit", (code) => reject(new Error(`the busy loop exited (${code}) early`)));
  });
}

interface CoreResult {
  core: number;
  before: Reading;
  after: Reading;
  gapsNs: number[];
  cgroup: boolean;
}

/** One window of the busy loop on a core, with readings at its ends. */
async function measureCore(core: number): Promise<CoreResult> {
  const [command, args] = pinnedCommand(
    process.execPath,
    ["-e", LOOP, String(SECONDS * 1000), String(GAP_US)],
    [core],
  );
  const child = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"] });
  const pid = child.pid!;
  const cgroup = await cgroupFor(pid);
  try {
    if ((await nextLine(child)) !== "ready") throw new Error("the busy loop did not start");
    const before = await reading(pid, core, cgroup);
    const gapsNs = JSON.parse(await nextLine(child)) as number[];
    const after = await reading(pid, core, cgroup);
    return { core, before, after, gapsNs, cgroup: cgroup !== undefined };
  } finally {
    await cgroup?.remove();
    child.stdin.end();
    child.kill();
  }
}

const ms = (ns: number) => (ns / 1e6).toFixed(1);
const tickMs = (ticks: number) => ((ticks * 1000) / TICKS_PER_SECOND).toFixed(0);

/** A core's figures, in ms over the window. */
function describe(r: CoreResult): string[] {
  const { before: b, after: a } = r;
  const wallNs = (a.at - b.at) * 1e6;
  const runNs = a.runNs - b.runNs;
  const loopRunNs = a.loopRunNs - b.loopRunNs;
  const waitNs = a.waitNs - b.waitNs;
  const gaps = r.gapsNs.reduce((s, g) => s + g, 0);
  const buckets = [
    [GAP_US * 1000, 1e5],
    [1e5, 1e6],
    [1e6, 1e7],
    [1e7, Infinity],
  ].map(([lo, hi]) => r.gapsNs.filter((g) => g >= lo! && g < hi!).length);
  const cgroup =
    a.cgroupNs !== undefined && b.cgroupNs !== undefined ? `${ms(a.cgroupNs - b.cgroupNs)} ms` : "not read";
  return [
    `core ${r.core}: wall ${ms(wallNs)} ms`,
    `  schedstat run ${ms(runNs)} ms (all threads); the loop's thread: run ${ms(loopRunNs)} ms, run-queue wait ${ms(waitNs)} ms, wall - run - wait ${ms(wallNs - loopRunNs - waitNs)} ms`,
    `  utime + stime ${tickMs(a.ticks - b.ticks)} ms; cgroup usage ${cgroup}`,
    `  /proc/stat on the core: steal ${tickMs(a.core.steal - b.core.steal)} ms, busy ${tickMs(a.core.busy - b.core.busy)} ms, irq + softirq ${tickMs(a.core.irq - b.core.irq)} ms`,
    `  the loop's gaps of ${GAP_US} us or more: ${r.gapsNs.length} (${buckets.join(" / ")} in <0.1 / 0.1-1 / 1-10 / >=10 ms), ${ms(gaps)} ms in all, longest ${ms(Math.max(0, ...r.gapsNs))} ms`,
    `  steal share of the window ${((a.core.steal - b.core.steal) / TICKS_PER_SECOND / (wallNs / 1e9)).toFixed(3)} core; run / wall ${(runNs / wallNs).toFixed(4)}`,
  ];
}

async function main(): Promise<void> {
  const config = await readKernelConfig();
  const option =
    config === undefined
      ? "unknown"
      : (kernelConfigOption(config, "CONFIG_PARAVIRT_TIME_ACCOUNTING") ?? "absent");
  console.log(
    `kernel ${os.release()}: CONFIG_PARAVIRT_TIME_ACCOUNTING=${option}; steal ${await readStealAccounting()} from a task's run time`,
  );
  console.log(`busy loop of ${SECONDS} s on each of cores ${CORES.join(", ")}\n`);
  for (const core of CORES) console.log(describe(await measureCore(core)).join("\n"));
}

await main();

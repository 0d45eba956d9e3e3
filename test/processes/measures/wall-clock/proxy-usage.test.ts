import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cgroupUsageReader } from "../../../../src/runner/cgroup-usage.js";
import { groupUsageReader } from "../../../../src/runner/cpu-usage.js";
import { finishCostSpan, startCostSpan } from "../../../../src/measures/wall-clock/proxy-cost.js";
import type { RunningProcess } from "../../../../src/runner/runtime.js";

// Real processes, real /proc and cgroup files of this machine; CPU time is compared with CPU
// time, so nothing here depends on how busy the machine is.

const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      // gone
    }
  }
});

/** A shell in its own process group running `script` (a group leader, as the runner starts a proxy). */
function group(script: string): number {
  const child = spawn("sh", ["-c", script], { detached: true, stdio: "ignore" });
  started.push(child);
  return child.pid!;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitForFile(file: string, timeoutMs = 20_000): Promise<string> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const text = await readFile(file, "utf8").catch(() => "");
    if (text.trim() !== "") return text;
    await sleep(50);
  }
  throw new Error(`${file}: not written in ${timeoutMs} ms`);
}

/** Burns `ms` of CPU in one process, then writes its own CPU time (µs) to `file` and exits. */
function burner(ms: number, file: string): string {
  const js = `const t=Date.now();while(Date.now()-t<${ms});const u=process.cpuUsage();require("fs").writeFileSync(${JSON.stringify(file)},String(u.user+u.system))`;
  return `${process.execPath} -e '${js}'`;
}

describe("a process group's usage (/proc)", () => {
  it("counts a worker that ended and was reaped inside the window, through its parent's cutime", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "pb-usage-"));
    try {
      const done = path.join(dir, "cpu-us");
      const pgid = group(`sleep 0.5; ${burner(400, done)}; sleep 30`);
      const read = groupUsageReader(pgid);
      const before = await read(false);
      expect(before?.source).toBe("proc");
      const workerUs = Number(await waitForFile(done));
      await sleep(200); // the shell reaps it
      const after = await read(false);
      const countedNs = after!.cpuNs - before!.cpuNs;
      // the worker is gone: its time is only in the shell's cutime + cstime (10 ms ticks)
      expect(countedNs / 1000).toBeGreaterThan(workerUs * 0.9 - 20_000);
      expect(countedNs / 1000).toBeLessThan(workerUs + 100_000);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("sums every thread's run time in ns, as the kernel's per-process ticks do, and resets the peak", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "pb-usage-"));
    try {
      const ready = path.join(dir, "ready");
      const burned = path.join(dir, "burned");
      // one process: touches 64 MiB and frees it; on SIGUSR2 burns on two threads at once, and
      // keeps both (a thread that ended would take its time with it)
      const js = [
        "let b=Buffer.alloc(64<<20,1);b=null;global.gc();",
        "const fs=require('fs');const {Worker}=require('worker_threads');",
        "const burn='let x=0;for(let i=0;i<1e8;i++)x+=i;';",
        "const keep='setTimeout(()=>{},30000);';",
        `process.on('SIGUSR2',()=>{const w=new Worker(burn+'require(\\'worker_threads\\').parentPort.postMessage(1);'+keep,{eval:true});eval(burn);w.on('message',()=>fs.writeFileSync('${burned}','1'))});`,
        `fs.writeFileSync('${ready}','1');eval(keep);`,
      ].join("");
      const pgid = group(`exec ${process.execPath} --expose-gc -e "${js}"`);
      await waitForFile(ready);
      const read = groupUsageReader(pgid);
      const ticks = async () => {
        const stat = await readFile(`/proc/${pgid}/stat`, "utf8");
        const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        return (Number(f[11]) + Number(f[12])) * 10; // utime + stime, ms
      };
      const ticksBefore = await ticks();
      const first = await read(true);
      expect(first!.peakMemoryBytes!).toBeGreaterThan(64 * 1024 * 1024);
      expect(first!.peakSinceReset).toBe(false);
      process.kill(pgid, "SIGUSR2");
      await waitForFile(burned);
      const second = await read(false);
      const ticksMs = (await ticks()) - ticksBefore;
      const countedMs = (second!.cpuNs - first!.cpuNs) / 1e6;
      expect(countedMs).toBeGreaterThan(100);
      expect(Math.abs(countedMs - ticksMs)).toBeLessThan(40);
      expect(second!.peakSinceReset).toBe(true);
      expect(second!.peakMemoryBytes!).toBeLessThan(first!.peakMemoryBytes! - 32 * 1024 * 1024);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("reads nothing for a group that does not exist", async () => {
    expect(await groupUsageReader(2 ** 22 + 12345)(false)).toBeUndefined();
  });
});

describe("the idle rate taken off the span", () => {
  it("takes off a busy idler's CPU outside the window, with its rate read before the span or over the gap", async () => {
    // a "proxy" that is never idle: 4 ms of work every 20 ms, about 0.2 core, load or not
    const js = "setInterval(()=>{const t=Date.now();while(Date.now()-t<4);},20)";
    const pgid = group(`exec ${process.execPath} -e "${js}"`);
    await sleep(300);
    const read = groupUsageReader(pgid);
    const proc: RunningProcess = {
      name: "idler",
      pid: pgid,
      exited: new Promise(() => {}),
      alive: () => true,
      stop: async () => {},
      usage: read,
    };
    // first span: no earlier reading, so the idle rate comes from a short pause before it
    const first = await startCostSpan(proc);
    expect(first?.idleCores).toBeGreaterThan(0.02);
    await sleep(1000); // all of it outside a 1 ms "window": the engine starting
    const all = await finishCostSpan(proc, first, { durationS: 0.001, requests: 100 });
    expect(all!.idleCpuS).toBeGreaterThan(0);
    expect(all!.cpuS).toBeLessThan(all!.idleCpuS);
    // second span, more than a second later: the idle rate is the gap's, no pause
    await sleep(1200);
    const second = await startCostSpan(proc);
    expect(second?.idleCores).toBeGreaterThan(0.02);
    await sleep(500);
    const inside = await finishCostSpan(proc, second, { durationS: 60, requests: 100 });
    // a window as long as the span: nothing is outside it, nothing taken off
    expect(inside!.idleCpuS).toBe(0);
    expect(inside!.cpuS).toBeGreaterThan(0.01);
  });
});

describe("a cgroup's usage", () => {
  it("reads the CPU of this process's own cgroup, which holds at least this process's time", async () => {
    const read = cgroupUsageReader(process.pid);
    const before = await read();
    expect(before?.source).toBe("cgroup");
    const own = process.cpuUsage();
    const t = Date.now();
    while (Date.now() - t < 200);
    const ownNs = process.cpuUsage(own);
    const after = await read();
    expect(after!.cpuNs - before!.cpuNs).toBeGreaterThanOrEqual((ownNs.user + ownNs.system) * 1000 * 0.95);
    expect(after!.peakMemoryBytes ?? 1).toBeGreaterThan(0);
  });
});

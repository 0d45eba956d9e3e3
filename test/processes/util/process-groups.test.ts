import { describe, expect, it, vi } from "vitest";
import { processCpuSeconds } from "../../../src/util/proc-stat.js";
import { liveProcesses, runCommand, startProcess } from "../../../src/util/processes.js";
import { processGroupMembers } from "../../support/runner/helpers.js";

// src/util/processes.ts with real child processes; its pure part is in test/unit/util/processes.test.ts.

/** How long a process-state check may wait for the kernel on a busy host: polled every 50 ms. */
const WAIT = { timeout: 10_000, interval: 50 };

/** Pids of a group that still run (zombies waiting for init to reap them do not count). */
function pidsInGroup(pgid: number): number[] {
  return processGroupMembers(pgid).map((p) => p.pid);
}

describe("startProcess", () => {
  it("stops the whole process group, children included", async () => {
    const proc = await startProcess({
      name: "shell",
      command: "sh",
      args: ["-c", "sleep 30 & sleep 30 & wait"],
      cpus: [0],
    });
    await vi.waitFor(() => expect(pidsInGroup(proc.pid!).length).toBeGreaterThanOrEqual(3), WAIT);
    expect(liveProcesses()).toContain(proc);
    await proc.stop(1000);
    await vi.waitFor(() => expect(pidsInGroup(proc.pid!)).toEqual([]), WAIT);
    expect(liveProcesses()).not.toContain(proc);
  });

  it("stopping a leader that already died kills what is left of its group", async () => {
    // The shell leaves a child behind and kills itself, as a master process killed mid-run would.
    const proc = await startProcess({ name: "leader", command: "sh", args: ["-c", "sleep 30 & kill -9 $$"] });
    await proc.exited;
    await vi.waitFor(() => expect(proc.alive()).toBe(false), WAIT);
    expect(pidsInGroup(proc.pid!).length).toBe(1);
    await proc.stop(500);
    await vi.waitFor(() => expect(pidsInGroup(proc.pid!)).toEqual([]), WAIT);
  });

  it("reports a missing executable as an error naming it", async () => {
    await expect(startProcess({ name: "ghost", command: "/nonexistent/ghost", args: [] })).rejects.toThrow(
      /cannot start ghost/,
    );
  });

  it("counts the CPU a busy process uses", async () => {
    // Polled, not timed: on a busy host a spinning shell may get a fraction of a core, so the
    // test waits (up to 15 s) for the count to pass 0.2 s and checks that it only grows.
    const proc = await startProcess({ name: "busy", command: "sh", args: ["-c", "while :; do :; done"] });
    const readings = [(await processCpuSeconds(proc.pid!)) ?? 0];
    const deadline = Date.now() + 15_000;
    while (readings.at(-1)! <= 0.2 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      readings.push((await processCpuSeconds(proc.pid!)) ?? 0);
    }
    await proc.stop(500);
    expect(readings.at(-1)).toBeGreaterThan(0.2);
    expect(readings).toEqual([...readings].sort((a, b) => a - b));
  });

  it("runCommand returns the exit code and output", async () => {
    const { code, output } = await runCommand("sh", ["-c", "echo hello; exit 3"]);
    expect(code).toBe(3);
    expect(output).toContain("hello");
  });
});

describe("runCommand output", () => {
  it("holds everything the command printed, every time", async () => {
    for (let i = 0; i < 20; i++) {
      const { output } = await runCommand("sh", ["-c", "printf 'line-%s\\n' 1 2 3 4 5"]);
      expect(output).toBe("line-1\nline-2\nline-3\nline-4\nline-5\n");
    }
  });
});

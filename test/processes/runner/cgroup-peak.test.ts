import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, rmdir } from "node:fs/promises";
import path from "node:path";
import { createInterface } from "node:readline";
import { afterAll, describe, expect, it } from "vitest";
import { cgroupUsageReader, type CgroupUsageReader } from "../../../src/runner/cgroup-usage.js";

/**
 * A container's peak memory per repetition, on this kernel: a process alone in a memory cgroup
 * of its own (v1's memory controller, else the unified hierarchy), as docker puts a container,
 * read by the docker runtime's reader. It touches 64 MiB and frees them, then holds 24 MiB.
 */

const V1 = "/sys/fs/cgroup/memory";
const ROOT = existsSync(path.join(V1, "cgroup.procs")) ? V1 : "/sys/fs/cgroup";
const GROUP = path.join(ROOT, `pb-peak-${process.pid}`);
const MIB = 1024 * 1024;

const canMakeCgroup = await mkdir(GROUP).then(
  () => true,
  () => false,
);

const PROGRAM = `
import sys
b = b"x" * (64 << 20)
del b
print("freed", flush=True)
sys.stdin.readline()
held = b"y" * (24 << 20)
print("held", flush=True)
sys.stdin.readline()
`;

let child: ChildProcessWithoutNullStreams | undefined;
let reader: CgroupUsageReader | undefined;
afterAll(async () => {
  child?.kill("SIGKILL");
  await reader?.close();
  await new Promise((r) => setTimeout(r, 200));
  await rmdir(GROUP).catch(() => undefined);
});

describe.skipIf(!canMakeCgroup)("a container's peak memory, started over for each repetition", () => {
  it("reads the window's peak after a reset, not the running maximum since the start", async () => {
    // the shell joins the cgroup before python starts, so every page it touches is charged there
    child = spawn("sh", ["-c", `echo $$ > ${GROUP}/cgroup.procs && exec python3 -c '${PROGRAM}'`]);
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    expect((await lines.next()).value).toBe("freed");
    expect(await readFile(`/proc/${child.pid}/cgroup`, "utf8")).toContain(`pb-peak-${process.pid}`);
    reader = cgroupUsageReader(child.pid!);
    const running = await reader(true);
    expect(running?.peakSinceReset).toBe(false);
    expect(running!.peakMemoryBytes!).toBeGreaterThan(64 * MIB);
    const quiet = await reader();
    expect(quiet?.peakSinceReset).toBe(true);
    expect(quiet!.peakMemoryBytes!).toBeLessThan(40 * MIB);
    child.stdin.write("\n");
    expect((await lines.next()).value).toBe("held");
    const holding = await reader();
    expect(holding!.peakMemoryBytes!).toBeGreaterThan(24 * MIB);
    expect(holding!.peakMemoryBytes!).toBeLessThan(64 * MIB);
  });
});

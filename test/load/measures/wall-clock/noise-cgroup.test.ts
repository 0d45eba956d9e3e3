import { afterAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, rmdir, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { cgroupUsageReader } from "../../../../src/runner/cgroup-usage.js";
import { noiseBetween, noiseSnapshot, type OutsideCpu } from "../../../../src/measures/wall-clock/noise.js";

/**
 * Noise under the docker runtime, with real parts: a busy process that is not a descendant of
 * this one (reparented, as a container's processes are the engine's children), pinned to one
 * core and alone in a control group of its own, as a container is. Its time on that core is
 * other work unless its cgroup's CPU counts as this run's own: the docker runtime's
 * outsideCpuNs, read by cgroupUsageReader.
 */

const V1 = "/sys/fs/cgroup/cpuacct";
const ROOT = existsSync(path.join(V1, "cgroup.procs")) ? V1 : "/sys/fs/cgroup";
const GROUP = path.join(ROOT, `pb-noise-${process.pid}`);
const CORE = os.cpus().length - 1;

/** Whether a cgroup of our own can be made here (root, a writable cgroup filesystem). */
const canMakeCgroup = await mkdir(GROUP).then(
  () => true,
  () => false,
);

let busy: number | undefined;
afterAll(async () => {
  if (busy !== undefined) spawnSync("kill", ["-KILL", String(busy)]);
  await new Promise((r) => setTimeout(r, 100));
  await rmdir(GROUP).catch(() => undefined);
});

describe.skipIf(!canMakeCgroup)("noise on the pinned cores with a container's work on them", () => {
  it("counts the container's cgroup CPU as this run's, not as other work", async () => {
    // The shell ends at once: the loop is nobody's child here, like a container's processes.
    const started = spawnSync(
      "sh",
      ["-c", `taskset -c ${CORE} sh -c 'while :; do :; done' >/dev/null 2>&1 & echo $!`],
      { encoding: "utf8" },
    );
    busy = Number(started.stdout.trim());
    expect(Number.isInteger(busy) && busy > 0).toBe(true);
    await writeFile(path.join(GROUP, "cgroup.procs"), String(busy));
    expect(await readFile(`/proc/${busy}/cgroup`, "utf8")).toContain(`pb-noise-${process.pid}`);
    const reader = cgroupUsageReader(busy);
    const outside: OutsideCpu = async () => {
      const usage = await reader();
      return usage && new Map([["container", usage.cpuNs]]);
    };
    const before = await noiseSnapshot(outside);
    await new Promise((r) => setTimeout(r, 1000));
    const after = await noiseSnapshot(outside);
    expect(before?.outsideNs?.get("container")).toBeDefined();
    const counted = noiseBetween(before!, after!, [CORE]);
    const blind = noiseBetween({ ...before!, outsideNs: new Map() }, { ...after!, outsideNs: new Map() }, [
      CORE,
    ]);
    // Blind, the loop reads as other work (most of a core); counted, its share is gone.
    expect(blind.otherCpu).toBeGreaterThan(0.5);
    expect(blind.otherCpu - counted.otherCpu).toBeGreaterThan(0.3);
  });
});

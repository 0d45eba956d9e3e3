import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { windowPeak, type WindowPeak } from "../../../src/runner/cgroup-peak.js";

// A cgroup folder whose memory.peak cannot be opened for writing (a folder in its place), as on a
// kernel before 6.12 or without the right to write it: the peak of a window is then sampled.

let dir: string;
let peak: WindowPeak | undefined;
afterEach(async () => {
  await peak?.close();
  await rm(dir, { recursive: true, force: true });
});

async function cgroupWithoutReset(): Promise<string> {
  dir = await mkdtemp(path.join(os.tmpdir(), "pb-cgroup-peak-"));
  await mkdir(path.join(dir, "memory.peak"));
  await writeFile(path.join(dir, "memory.current"), "1000\n");
  return dir;
}

describe("a container's peak memory over a window, where the kernel cannot reset it", () => {
  it("samples memory.current from the reset on: the highest use of the window, none from before it", async () => {
    const folder = await cgroupWithoutReset();
    peak = windowPeak(folder, 2, 10);
    expect(await peak.reset()).toBe(true);
    expect(await peak.read()).toBe(1000);
    await writeFile(path.join(folder, "memory.current"), "2000\n");
    await sleep(60);
    await writeFile(path.join(folder, "memory.current"), "5000\n");
    await sleep(60);
    await writeFile(path.join(folder, "memory.current"), "3000\n");
    await sleep(60);
    expect(await peak.read()).toBe(5000);
    // a reset starts over from the current use
    expect(await peak.reset()).toBe(true);
    expect(await peak.read()).toBe(3000);
  });

  it("says it cannot reset when there is no counter to sample either", async () => {
    const folder = await cgroupWithoutReset();
    await rm(path.join(folder, "memory.current"));
    peak = windowPeak(folder, 2, 10);
    expect(await peak.reset()).toBe(false);
  });
});

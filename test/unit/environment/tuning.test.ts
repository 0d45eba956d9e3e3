import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { coresOfMask, parseBoost, readTuning } from "../../../src/environment/tuning.js";

describe("coresOfMask", () => {
  it.each([
    ["3", "0-1"],
    ["1", "0"],
    ["5", "0,2"],
    ["ff,ffffffff", "0-39"],
    ["00000000,00000f00", "8-11"],
    ["zz", undefined],
  ])("%s -> %s", (mask, cores) => {
    expect(coresOfMask(mask)).toBe(cores);
  });
});

describe("parseBoost", () => {
  it("reads intel_pstate's no_turbo first, then cpufreq's boost", () => {
    expect(parseBoost("1", undefined)).toBe("off");
    expect(parseBoost("0", "0")).toBe("on");
    expect(parseBoost(undefined, "1")).toBe("on");
    expect(parseBoost(undefined, "0")).toBe("off");
    expect(parseBoost(undefined, undefined)).toBeUndefined();
  });
});

describe("readTuning over a machine's /sys and /proc", () => {
  let root = "";
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  async function machine(files: Record<string, string>): Promise<string> {
    root = await mkdtemp(path.join(tmpdir(), "proxybench-tuning-"));
    for (const [file, text] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(root, file)), { recursive: true });
      await writeFile(path.join(root, file), text);
    }
    return root;
  }

  it("records SMT, boost, irqbalance and where interrupts go", async () => {
    const at = await machine({
      "/sys/devices/system/cpu/smt/control": "on\n",
      "/sys/devices/system/cpu/intel_pstate/no_turbo": "0\n",
      "/proc/irq/default_smp_affinity": "f\n",
      "/proc/1/comm": "systemd\n",
      "/proc/812/comm": "irqbalance\n",
    });
    expect(await readTuning(at)).toEqual({
      smt: "on",
      boost: "on",
      irqbalance: true,
      irqDefaultCores: "0-3",
    });
  });

  it("leaves out what the machine does not expose (a VM)", async () => {
    const at = await machine({ "/proc/1/comm": "init\n" });
    expect(await readTuning(at)).toEqual({ irqbalance: false });
  });
});

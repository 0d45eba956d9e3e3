import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../src/util/paths.js";
import { runCommand } from "../../src/util/processes.js";

// The built CLI as a user types it: a counted run of nginx, then compare of the run with itself.
const BIN = path.join(PROJECT_ROOT, "bin", "proxybench.js");
const cpus = os.cpus().length >= 2 ? "loadgen=0,proxy=1,upstream=1" : "loadgen=0,proxy=0,upstream=0";

describe("proxybench run --measure instructions (CLI)", () => {
  let tmp: string;
  beforeAll(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), "pb-instr-cli-"));
  });
  afterAll(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  it("prints the table and the results path; compare recognises a counted run", async () => {
    const out = path.join(tmp, "run");
    const args = [
      "run",
      "--measure",
      "instructions",
      "-p",
      "nginx,direct",
      "-r",
      "2",
      "--cpus",
      cpus,
      "-o",
      out,
    ];
    const run = await runCommand(process.execPath, [BIN, ...args], { timeoutMs: 120_000 });
    expect(run.code, run.output).toBe(0);
    expect(run.output).toMatch(/\| nginx \| [\d,.]+ \| [\d.]+% \| [\d,.]+ \| 2 \|/);
    expect(run.output).toContain("skipped direct: no proxy process to count");
    expect(run.output).toContain(`results: ${path.join(out, "instructions.json")}`);
    const compare = await runCommand(process.execPath, [BIN, "compare", out, out], { timeoutMs: 60_000 });
    expect(compare.code, compare.output).toBe(0);
    expect(compare.output).toMatch(/^## proxybench compare \(instructions\): 0 more work, 0 less work/m);
    expect(compare.output).toContain("Where it went: passthrough · **nginx**");
  });

  it("flags of wall-clock runs are a usage error naming them", async () => {
    const args = ["run", "--measure", "instructions", "--engine", "wrk", "-d", "5"];
    const run = await runCommand(process.execPath, [BIN, ...args], { timeoutMs: 30_000 });
    expect(run.code).toBe(2);
    expect(run.output).toContain("--measure instructions and --engine, --duration cannot be used together");
  });
});

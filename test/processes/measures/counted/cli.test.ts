import { spawn } from "node:child_process";
import { cp, mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InstructionsResults } from "../../../../src/measures/counted/schema.js";
import { PROJECT_ROOT } from "../../../../src/util/paths.js";
import { runCommand } from "../../../../src/util/processes.js";
import {
  descendants,
  processesMentioning,
  stillRunning,
  type ProcInfo,
} from "../../../support/runner/helpers.js";

// The built CLI as a user types it: a counted run of nginx, then compare of the run with itself.
const BIN = path.join(PROJECT_ROOT, "bin", "proxybench.js");
const cpus = os.cpus().length >= 2 ? "loadgen=0,proxy=1,upstream=1" : "loadgen=0,proxy=0,upstream=0";

describe("proxybench count (CLI)", () => {
  let tmp: string;
  beforeAll(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), "pb-instr-cli-"));
  });
  afterAll(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  it("prints the table and the results path; compare recognises a counted run", async () => {
    const out = path.join(tmp, "run");
    const args = ["count", "-p", "nginx,direct", "-r", "2", "--cpus", cpus, "-o", out];
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

  it("--variant: base and head in one run; compare RUN_DIR compares them, as markdown and as HTML", async () => {
    const variants = path.join(tmp, "variants");
    for (const name of ["base", "head"]) {
      await cp(path.join(PROJECT_ROOT, "proxies", "nginx"), path.join(variants, name, "proxies", "nginx"), {
        recursive: true,
      });
    }
    const out = path.join(tmp, "variant-run");
    const args = ["count", "-p", "nginx", "-r", "2", "--cpus", cpus, "-o", out];
    const variantArgs = [
      "--variant",
      `base=${path.join(variants, "base")}`,
      "--variant",
      `head=${path.join(variants, "head")}`,
    ];
    const run = await runCommand(process.execPath, [BIN, ...args, ...variantArgs], { timeoutMs: 180_000 });
    expect(run.code, run.output).toBe(0);
    expect(run.output).toMatch(/\| nginx \(base\) \| [\d,.]+ \|/);
    expect(run.output).toMatch(/\| nginx \(head\) \| [\d,.]+ \|/);
    expect(run.output).toContain("passthrough/nginx@head rep 2: ok");
    const compare = await runCommand(process.execPath, [BIN, "compare", out], { timeoutMs: 60_000 });
    expect(compare.code, compare.output).toBe(0);
    expect(compare.output).toContain("Variants of one run: head against base.");
    // The same configuration on both sides: never a change.
    expect(compare.output).toMatch(/^## proxybench compare \(instructions\): 0 more work, 0 less work/m);
    const page = path.join(tmp, "where.html");
    const html = await runCommand(
      process.execPath,
      [BIN, "compare", out, "--format", "html", "--out", page],
      {
        timeoutMs: 60_000,
      },
    );
    expect(html.code, html.output).toBe(0);
    expect(await readFile(page, "utf8")).toMatch(/^<!DOCTYPE html>[\s\S]*Content-Security-Policy/);
    const bad = await runCommand(process.execPath, [BIN, "compare", out, "--head", "pr"], {
      timeoutMs: 30_000,
    });
    expect(bad.code).toBe(2);
    expect(bad.output).toContain("--head: no variant 'pr' in this run (its variants: base, head)");
  });

  it("Ctrl-C: exit 130, the repetitions counted so far kept in a valid instructions.json, nothing left running", async () => {
    const out = path.join(tmp, "interrupted");
    const args = ["count", "-p", "nginx", "-r", "5", "--cpus", cpus, "-o", out];
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    let running: ProcInfo[] = [];
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
      // The first repetition is counted; the second is under way when the signal comes.
      if (running.length === 0 && /passthrough\/nginx rep 1: ok/.test(stderr)) {
        running = descendants(child.pid!);
        child.kill("SIGINT");
      }
    });
    const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
    expect(code, stderr).toBe(130);
    expect(stderr).toContain(
      `interrupted: 1 counted repetition(s) of 1 cell(s) kept in ${path.join(out, "instructions.json")}`,
    );
    expect(running.length).toBeGreaterThan(0); // the upstream at least
    expect(await stillRunning(running)).toEqual([]);
    expect(processesMentioning(out)).toEqual([]);
    const kept = InstructionsResults.parse(
      JSON.parse(await readFile(path.join(out, "instructions.json"), "utf8")),
    );
    expect(kept.finishedAt).toBeUndefined();
    expect(kept.cells.map((c) => `${c.id} ${c.status} ${c.repetitions.length}`)).toEqual([
      "passthrough/nginx ok 1",
    ]);
    expect(await readFile(path.join(out, "instructions.md"), "utf8")).toMatch(/\| nginx \| [\d,.]+ \|/);
  }, 120_000);

  it("a scenario the counted client cannot send (h2c) is skipped for each of its proxies, with the reason", async () => {
    const out = path.join(tmp, "h2c");
    const args = ["count", "-p", "haproxy", "-s", "passthrough-h2c", "-r", "1", "-o", out];
    const run = await runCommand(process.execPath, [BIN, ...args], { timeoutMs: 60_000 });
    expect(run.code, run.output).toBe(0);
    const reason = "scenario 'passthrough-h2c' speaks h2c; count sends HTTP/1.1 without TLS";
    expect(run.output).toContain(`skipped haproxy: ${reason}`);
    const kept = InstructionsResults.parse(
      JSON.parse(await readFile(path.join(out, "instructions.json"), "utf8")),
    );
    expect(kept.cells).toEqual([]);
    expect(kept.skipped.map((s) => `${s.proxy}: ${s.reason}`)).toEqual([`haproxy: ${reason}`]);
    const markdown = await readFile(path.join(out, "instructions.md"), "utf8");
    expect(markdown).toContain(
      "### passthrough-h2c\n\nNothing counted on this scenario: its proxies are under Skipped.\n",
    );
  });

  it("a flag of wall-clock runs is unknown to count; run --measure names count", async () => {
    const args = ["count", "-p", "nginx", "--engine", "wrk", "-d", "5"];
    const count = await runCommand(process.execPath, [BIN, ...args], { timeoutMs: 30_000 });
    expect(count.code).toBe(2);
    expect(count.output).toContain("error: unknown option '--engine'");
    const old = ["run", "--measure", "instructions", "-p", "nginx"];
    const run = await runCommand(process.execPath, [BIN, ...old], { timeoutMs: 30_000 });
    expect(run.code).toBe(2);
    expect(run.output).toContain(
      "error: unknown option '--measure': a counted run is its own command: proxybench count",
    );
  });
});

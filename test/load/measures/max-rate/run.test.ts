import { cp, mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { findMaxRates } from "../../../../src/measures/max-rate/run.js";
import { PROJECT_ROOT } from "../../../../src/util/paths.js";
import { liveProcesses } from "../../../../src/util/processes.js";
import {
  descendants,
  processesMentioning,
  stillRunning,
  type ProcInfo,
} from "../../../support/runner/helpers.js";

// proxybench max-rate against a target with a known limit: NGINX in front of the built-in upstream
// serving at most 800 requests per second (a scenario with `upstream.maxRps: 800`; requests
// beyond wait in a queue, then get 503). The search must find that limit within 10%, with
// real k6 runs of one second each.

const LIMIT = 800;

async function cappedScenarioDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "proxybench-capped-"));
  await cp(path.join(PROJECT_ROOT, "scenarios", "passthrough"), path.join(dir, "capped"), {
    recursive: true,
  });
  await cp(path.join(PROJECT_ROOT, "scenarios", "lib"), path.join(dir, "lib"), { recursive: true });
  const file = path.join(dir, "capped", "scenario.yml");
  const text = (await readFile(file, "utf8"))
    .replace("name: passthrough", "name: capped")
    .replace("latencyMs: 0", `latencyMs: 0\n  maxRps: ${LIMIT}`);
  await writeFile(file, text);
  return dir;
}

describe("findMaxRates with k6, through nginx", () => {
  it(`finds an upstream's ${LIMIT} req/s limit within 10%`, async () => {
    const scenariosDir = await cappedScenarioDir();
    const out = await mkdtemp(path.join(tmpdir(), "proxybench-maxrate-"));
    let printed = "";
    const [outcome, ...others] = await findMaxRates(
      {
        proxies: ["nginx"],
        scenarios: ["capped"],
        cpus: "loadgen=0,proxy=1,upstream=1",
        out,
        durationS: 1,
        // The limit shows as throughput (served < 95% of the rate asked) and as 503s once the
        // upstream's queue passes 1 s; the p99 bound is loose because the two cores are shared
        // with other work, whose latency spikes would otherwise end the search early.
        maxP99Ms: 1000,
        search: { startRate: 200, precision: 0.05, maxSteps: 10 },
        scenariosDirs: [scenariosDir],
      },
      { stdout: { write: (s: string) => (printed += s) }, stderr: { write: () => true }, cores: 2 },
    );
    console.log(printed);
    expect(others).toEqual([]);
    const { result } = outcome!;
    expect(result.rate, printed).toBeDefined();
    expect(Math.abs((result.rate ?? 0) - LIMIT) / LIMIT, printed).toBeLessThanOrEqual(0.1);
    // It ramped past the limit, and no rate above the answer held.
    expect(result.steps.some((s) => s.phase === "ramp" && !s.ok)).toBe(true);
    for (const s of result.steps.filter((st) => st.rate > (result.rate ?? 0)))
      expect(s.ok, printed).toBe(false);
    // The outcome is printed and on disk in OUT/<proxy>-<scenario>, with every step, and nothing is left running.
    expect(printed).toMatch(
      /^nginx \S+ on capped: p99 <= 1000 ms, .*1 s per step\nmaximum sustainable rate: /,
    );
    expect(outcome!.file).toBe(path.join(out, "nginx-capped", "max-rate.json"));
    expect(printed).toContain(`details: ${outcome!.file}`);
    const saved = JSON.parse(readFileSync(outcome!.file, "utf8")) as typeof outcome;
    expect(saved!.result.steps).toHaveLength(result.steps.length);
    const raw = await readdir(path.join(out, "nginx-capped", "raw"));
    expect(raw.some((f) => f.startsWith("rate-step0-200"))).toBe(true);
    expect(liveProcesses()).toEqual([]);
  }, 180_000);
});

describe("proxybench max-rate (CLI) on Ctrl-C", () => {
  it("exit 130, the finished search kept in its max-rate.json, nothing left running", async () => {
    const out = await mkdtemp(path.join(tmpdir(), "proxybench-maxrate-int-"));
    // A p99 bound no step holds: each search ends after a few one-second steps down from its start.
    const args = ["max-rate", "-p", "nginx,haproxy", "-s", "passthrough", "--max-p99", "0.01"];
    args.push("--cpus", "loadgen=0,proxy=1,upstream=1", "-d", "1", "-o", out);
    const bin = path.join(PROJECT_ROOT, "bin", "proxybench.js");
    const child = spawn(process.execPath, [bin, ...args], { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    let running: ProcInfo[] = [];
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
      // nginx's search is done; haproxy's first step is under way when the signal comes.
      if (running.length === 0 && /find-max-rate: haproxy on passthrough\n[\s\S]*ramp \d+\/s/.test(stderr)) {
        running = descendants(child.pid!);
        child.kill("SIGINT");
      }
    });
    const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
    expect(code, stderr).toBe(130);
    expect(stderr).toContain(`interrupted: 1 search(es) finished, each in its max-rate.json in ${out}`);
    expect(running.length).toBeGreaterThan(0);
    expect(await stillRunning(running)).toEqual([]);
    expect(processesMentioning(out)).toEqual([]);
    const kept = JSON.parse(await readFile(path.join(out, "nginx-passthrough", "max-rate.json"), "utf8")) as {
      proxy: string;
      result: { steps: unknown[] };
    };
    expect(kept.proxy).toBe("nginx");
    expect(kept.result.steps.length).toBeGreaterThan(0);
    await expect(readFile(path.join(out, "haproxy-passthrough", "max-rate.json"))).rejects.toThrow(/ENOENT/);
  }, 120_000);
});

describe("findMaxRates: what it refuses before starting anything", () => {
  const cases: Array<{ name: string; proxies: string[]; scenarios: string[]; error: RegExp }> = [
    {
      name: "an unknown proxy",
      proxies: ["nginxx"],
      scenarios: ["passthrough"],
      error: /--proxies: unknown 'nginxx' \(known: .*nginx/,
    },
    {
      name: "an unknown scenario",
      proxies: ["nginx"],
      scenarios: ["nope"],
      error: /--scenarios: unknown 'nope' \(known: .*passthrough/,
    },
    {
      name: "an image-only proxy",
      proxies: ["ocelot"],
      scenarios: ["passthrough"],
      error: /ocelot is image only/,
    },
    {
      name: "a bad CPU layout",
      proxies: ["nginx"],
      scenarios: ["passthrough"],
      error: /--cpus: proxy: core 7 does not exist/,
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const out = await mkdtemp(path.join(tmpdir(), "proxybench-maxrate-bad-"));
      const cpus = c.name === "a bad CPU layout" ? "loadgen=0,proxy=7,upstream=1" : undefined;
      await expect(
        findMaxRates(
          { proxies: c.proxies, scenarios: c.scenarios, out, ...(cpus ? { cpus } : {}) },
          { stdout: { write: () => true }, stderr: { write: () => true }, cores: 2 },
        ),
      ).rejects.toThrow(c.error);
      expect(liveProcesses()).toEqual([]);
    });
  }

  it("a proxy whose binary is missing, before any other is searched", async () => {
    const proxiesDir = await mkdtemp(path.join(tmpdir(), "proxybench-maxrate-proxies-"));
    await cp(path.join(PROJECT_ROOT, "proxies", "nginx"), path.join(proxiesDir, "nginx-elsewhere"), {
      recursive: true,
    });
    const yml = path.join(proxiesDir, "nginx-elsewhere", "proxy.yml");
    const text = await readFile(yml, "utf8");
    await writeFile(
      yml,
      text
        .replace("name: nginx", "name: nginx-elsewhere")
        .replace("binary: nginx", "binary: pb-no-such-nginx"),
    );
    let said = "";
    const searched = findMaxRates(
      { proxies: ["nginx", "nginx-elsewhere"], scenarios: ["passthrough"], proxiesDirs: [proxiesDir] },
      {
        stdout: { write: (s: string) => (said += s) },
        stderr: { write: (s: string) => (said += s) },
        cores: 2,
      },
    );
    await expect(searched).rejects.toThrow(/^max-rate: nginx-elsewhere: 'pb-no-such-nginx' not found: /);
    await expect(searched).rejects.toMatchObject({ exitCode: 2 });
    expect(said).toBe("");
    expect(liveProcesses()).toEqual([]);
  });
});

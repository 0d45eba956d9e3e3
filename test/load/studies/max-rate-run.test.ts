import { cp, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { findMaxRates, findProxyMaxRate, formatProxyMaxRate } from "../../../src/studies/max-rate-run.js";
import { PROJECT_ROOT } from "../../../src/util/paths.js";
import { liveProcesses } from "../../../src/util/processes.js";

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

describe("findProxyMaxRate with k6, through nginx", () => {
  it(`finds an upstream's ${LIMIT} req/s limit within 10%`, async () => {
    const scenariosDir = await cappedScenarioDir();
    const outDir = await mkdtemp(path.join(tmpdir(), "proxybench-maxrate-"));
    const outcome = await findProxyMaxRate({
      proxy: "nginx",
      scenario: "capped",
      cpus: { loadgen: [0], proxy: [1], upstream: [1] },
      outDir,
      stepDurationS: 1,
      // The limit shows as throughput (served < 95% of the rate asked) and as 503s once the
      // upstream's queue passes 1 s; the p99 bound is loose because the two cores are shared
      // with other work, whose latency spikes would otherwise end the search early.
      maxP99Ms: 1000,
      search: { startRate: 200, precision: 0.05, maxSteps: 10 },
      dirs: { scenariosDirs: [scenariosDir] },
    });
    const text = formatProxyMaxRate(outcome);
    console.log(text);
    const { result } = outcome;
    expect(result.rate, text).toBeDefined();
    expect(Math.abs((result.rate ?? 0) - LIMIT) / LIMIT, text).toBeLessThanOrEqual(0.1);
    // It ramped past the limit, and no rate above the answer held.
    expect(result.steps.some((s) => s.phase === "ramp" && !s.ok)).toBe(true);
    for (const s of result.steps.filter((st) => st.rate > (result.rate ?? 0))) expect(s.ok, text).toBe(false);
    // The outcome is on disk, with every step, and nothing is left running.
    const saved = JSON.parse(readFileSync(outcome.file, "utf8")) as typeof outcome;
    expect(saved.result.steps).toHaveLength(result.steps.length);
    expect(liveProcesses()).toEqual([]);
  }, 180_000);
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
});

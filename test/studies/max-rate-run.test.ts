import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { K6Engine } from "../../src/engines/k6/adapter.js";
import { loadScenarioFile } from "../../src/manifests/load.js";
import { ensureUpstream, parseListening } from "../../src/runner/upstream.js";
import { findMaxRate, formatMaxRate } from "../../src/studies/max-rate.js";
import { PROJECT_ROOT } from "../../src/util/paths.js";
import { startProcess, type ManagedProcess } from "../../src/util/processes.js";

// --find-max-rate against a target with a known limit: the built-in upstream serving at most
// 800 requests per second (requests beyond wait in a queue, then get 503). The search must
// find that limit within 10%, with real k6 runs of two seconds each.

const LIMIT = 800;
let dir: string;
let upstream: ManagedProcess;
let baseUrl: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "proxybench-maxrate-"));
  const bin = await ensureUpstream();
  const log = path.join(dir, "upstream.log");
  upstream = await startProcess({
    name: "upstream",
    command: bin,
    args: ["--listen", "127.0.0.1:0", "--max-rps", String(LIMIT)],
    cpus: [1],
    logFile: log,
  });
  for (let i = 0; i < 100; i++) {
    const addr = parseListening(await readFile(log, "utf8").catch(() => ""));
    if (addr) {
      baseUrl = `http://${addr.host}:${addr.port}`;
      return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("the upstream did not start");
});

afterAll(async () => {
  await upstream.stop();
});

describe("findMaxRate with k6", () => {
  it(`finds an upstream's ${LIMIT} req/s limit within 10%`, async () => {
    const scenario = await loadScenarioFile(
      path.join(PROJECT_ROOT, "scenarios", "passthrough", "scenario.yml"),
    );
    const result = await findMaxRate({
      engine: new K6Engine(),
      scenario: scenario.manifest,
      scenarioDir: scenario.dir,
      baseUrl,
      cpus: [0],
      outDir: dir,
      stepDurationS: 2,
      // The limit shows as throughput (served < 95% of the rate asked) and as 503s once the
      // upstream's queue passes 1 s; the p99 bound is loose because the two cores are shared
      // with other work, whose spikes would otherwise end the search early.
      limits: { maxP99Ms: 1000 },
      search: { startRate: 200, precision: 0.05, maxSteps: 10 },
    });
    const text = formatMaxRate(result);
    console.log(text);
    expect(result.rate, text).toBeDefined();
    expect(Math.abs((result.rate ?? 0) - LIMIT) / LIMIT, text).toBeLessThanOrEqual(0.1);
    // It ramped past the limit and every rate above the answer that was tried did not hold.
    expect(result.steps.some((s) => s.phase === "ramp" && !s.ok)).toBe(true);
    for (const s of result.steps.filter((st) => st.rate > (result.rate ?? 0))) expect(s.ok, text).toBe(false);
  }, 90_000);
});

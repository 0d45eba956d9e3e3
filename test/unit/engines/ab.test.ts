import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  abTarget,
  buildAbArgs,
  normaliseAb,
  parseAbCsv,
  parseAbOutput,
  type AbTarget,
} from "../../../src/engines/ab.js";
import { ScenarioManifest } from "../../../src/manifests/schema.js";
import type { Load } from "../../../src/results/schema.js";

const FIXTURES = path.join(import.meta.dirname, "..", "..", "fixtures", "ab");
const fixture = (name: string): string => readFileSync(path.join(FIXTURES, name), "utf8");

const GET: AbTarget = { method: "GET", path: "/api/values", headers: {} };
const URL = "http://127.0.0.1:8080/api/values";

describe("buildAbArgs", () => {
  const cases: Array<{ name: string; load: Load; target?: AbTarget; bodyFile?: string; expected: string[] }> =
    [
      {
        name: "fixed count without keep-alive (the Ocelot study)",
        load: { label: "1000c", model: "fixed-count", connections: 1000, requests: 20000 },
        expected: ["-q", "-r", "-c", "1000", "-n", "20000", "-e", "/o/x.csv", URL],
      },
      {
        name: "timed run: -t then -n so that ab does not stop at 50000",
        load: { label: "d", model: "max-throughput", connections: 50 },
        expected: ["-q", "-r", "-c", "50", "-t", "3", "-n", "750000", "-e", "/o/x.csv", URL],
      },
      {
        name: "keep-alive when the load says so; vus as concurrency",
        load: { label: "ka", model: "constant-vus", vus: 10, keepAlive: true },
        expected: ["-q", "-r", "-c", "10", "-t", "3", "-n", "750000", "-k", "-e", "/o/x.csv", URL],
      },
      {
        name: "POST with a body, headers passed, content type through -T",
        load: { label: "p", model: "fixed-count", connections: 2, requests: 10 },
        target: {
          method: "POST",
          path: "/p",
          headers: { "X-A": "1", "Content-Type": "application/json" },
          body: "{}",
        },
        bodyFile: "/o/x.body",
        expected: [
        "-q", "-r", "-c", "2", "-n", "10", "-m", "POST", "-H", "X-A: 1",
        "-p", "/o/x.body", "-T", "application/json", "-e", "/o/x.csv", URL,
      ], // prettier-ignore
      },
    ];
  for (const c of cases) {
    it(c.name, () => {
      const args = buildAbArgs({
        load: c.load,
        durationS: 3,
        url: URL,
        target: c.target ?? GET,
        csvFile: "/o/x.csv",
        bodyFile: c.bodyFile,
      });
      expect(args).toEqual(c.expected);
    });
  }

  it("refuses a fixed count below the concurrency (ab would refuse it too)", () => {
    expect(() =>
      buildAbArgs({
        load: { label: "x", model: "fixed-count", connections: 100, requests: 10 },
        durationS: 1,
        url: URL,
        target: GET,
        csvFile: "c",
      }),
    ).toThrow(/at least as many requests \(10\) as connections \(100\)/);
  });
});

describe("abTarget", () => {
  const scenario = (requests: unknown[]) =>
    ScenarioManifest.parse({
      name: "s",
      description: "d",
      engine: "ab",
      requests,
      loads: [{ label: "d", model: "max-throughput" }],
    });
  it("takes the single request, with its one var value expanded", () => {
    expect(abTarget(scenario([{ path: "/c/{code}", vars: { code: ["fr"] } }]))).toMatchObject({
      method: "GET",
      path: "/c/fr",
    });
  });
  it("refuses a scenario of several requests per iteration, naming it and the way out", () => {
    expect(() => abTarget(scenario([{ path: "/c/{code}", vars: { code: ["fr", "de"] } }]))).toThrow(
      /scenario 's'.*2 requests.*--engine k6/,
    );
  });
});

describe("parseAbOutput on real ab outputs", () => {
  it("clean run", () => {
    const r = parseAbOutput(fixture("clean.txt"));
    expect(r).toMatchObject({
      serverSoftware: "nginx/1.22.1",
      documentPath: "/api/values",
      documentLength: 19,
      concurrency: 50,
      timeTakenS: 0.112,
      complete: 2000,
      failed: 0,
      non2xx: 0,
      keepAliveRequests: 0,
      totalTransferred: 336000,
      htmlTransferred: 38000,
      rps: 17906.23,
      timePerRequestMs: 2.792,
      timePerRequestAcrossMs: 0.056,
      totalMs: { min: 2, mean: 3, median: 3, max: 4 },
    });
    expect(r?.ladderMs).toEqual({
      "50": 3,
      "66": 3,
      "75": 3,
      "80": 3,
      "90": 3,
      "95": 3,
      "98": 4,
      "99": 4,
      "100": 4,
    });
  });
  it("the Ocelot study's NGINX run: 20000 non-2xx responses", () => {
    const r = parseAbOutput(fixture("seed-ocelot-nginx-404.txt"));
    expect(r).toMatchObject({
      complete: 20000,
      failed: 0,
      writeErrors: 0,
      non2xx: 20000,
      documentLength: 494,
    });
    expect(r?.ladderMs["100"]).toBe(3057);
  });
  it("length failures are broken down", () => {
    expect(parseAbOutput(fixture("varying.txt"))?.failedBreakdown).toEqual({
      connect: 0,
      receive: 0,
      length: 455,
      exceptions: 0,
    });
  });
  it("no summary when ab stopped on a refused connection", () => {
    expect(parseAbOutput(fixture("closed.txt"))).toBeUndefined();
  });
});

describe("parseAbCsv", () => {
  it("reads the 0..100 ladder", () => {
    const ladder = parseAbCsv(fixture("clean.csv"));
    expect(Object.keys(ladder)).toHaveLength(101);
    expect(ladder["0"]).toBe(1.545);
    expect(ladder["100"]).toBe(4.277);
  });
});

describe("normaliseAb", () => {
  const cases: Array<{
    name: string;
    text: string;
    csv?: string;
    exit: number | null;
    expected: Record<string, unknown>;
    engineErrors: number;
  }> = [
    {
      name: "clean: every request successful, latency from the CSV ladder",
      text: "clean.txt",
      csv: "clean.csv",
      exit: 0,
      expected: {
        requests: 2000,
        errors: 0,
        non2xx: 0,
        checkFailures: 0,
        statusCodes: { "2xx": 2000 },
        bytesReceived: 336000,
        latencyMs: { min: 1.545, mean: 2.792, p50: 2.619, p90: 3.301, p95: 3.407, p99: 4.123, max: 4.277 },
      },
      engineErrors: 0,
    },
    {
      name: "all 404: counted as non-2xx, none successful",
      text: "non2xx.txt",
      csv: "non2xx.csv",
      exit: 0,
      expected: { requests: 500, rps: 0, non2xx: 500, statusCodes: { "non-2xx": 500 } },
      engineErrors: 0,
    },
    {
      name: "varying lengths: check failures, not transport errors",
      text: "varying.txt",
      csv: "varying.csv",
      exit: 0,
      expected: { requests: 500, errors: 0, checkFailures: 455, statusCodes: { "2xx": 500 } },
      engineErrors: 0,
    },
    {
      name: "closed port with -r: every request a transport error (counted once each)",
      text: "closed-r.txt",
      csv: "closed-r.csv",
      exit: 0,
      expected: { requests: 100, errors: 100, rps: 0, statusCodes: { "0": 100 } },
      engineErrors: 0,
    },
    {
      name: "closed port without -r: an engine error quoting ab",
      text: "closed.txt",
      exit: 111,
      expected: { requests: 0 },
      engineErrors: 1,
    },
    {
      name: "the study's own published NGINX run, text ladder only",
      text: "seed-ocelot-nginx-404.txt",
      exit: 0,
      expected: { requests: 20000, non2xx: 20000, rps: 0, latencyMs: expect.objectContaining({ p99: 3047 }) },
      engineErrors: 0,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const m = normaliseAb(fixture(c.text), c.csv ? fixture(c.csv) : undefined, c.exit, ["x"]);
      expect(m).toMatchObject(c.expected);
      expect(m.engineErrors).toHaveLength(c.engineErrors);
    });
  }

  it("closed without -r names the cause", () => {
    const m = normaliseAb(fixture("closed.txt"), undefined, 111, []);
    expect(m.engineErrors[0]).toMatch(/code 111.*Connection refused/);
  });

  it("req/s counts successful responses only", () => {
    const m = normaliseAb(fixture("keepalive.txt"), fixture("keepalive.csv"), 0, []);
    expect(m.rps).toBeCloseTo(299466 / 2.0, 3);
    expect(Object.keys(m.latencyPercentilesMs ?? {})).toEqual([
      "50",
      "66",
      "75",
      "80",
      "90",
      "95",
      "98",
      "99",
      "100",
    ]);
  });
});

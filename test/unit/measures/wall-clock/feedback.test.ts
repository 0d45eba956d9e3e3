import { describe, expect, it } from "vitest";
import {
  estimateRemaining,
  formatDuration,
  formatProgress,
  Progress,
} from "../../../../src/measures/wall-clock/progress.js";
import {
  describeRepetition,
  failedMeasurement,
  toRepetition,
} from "../../../../src/measures/wall-clock/repetition.js";
import { tailOf } from "../../../../src/util/logs.js";
import { parseListening } from "../../../../src/runner/upstream.js";
import { parseVersion } from "../../../../src/runner/proxy-binary.js";
import { Repetition } from "../../../../src/results/schema.js";

describe("progress", () => {
  it.each([
    [0, "0:00"],
    [59.6, "1:00"],
    [125, "2:05"],
    [3725, "1:02:05"],
  ])("formatDuration(%d) = %s", (s, text) => {
    expect(formatDuration(s)).toBe(text);
  });

  it.each([
    [
      { label: "passthrough-default nginx", rep: 2, reps: 3, elapsedS: 42, etaS: 70 },
      "passthrough-default nginx  rep 2/3  elapsed 0:42  ETA 1:10",
    ],
    [{ label: "x", rep: 0, reps: 3, elapsedS: 1, etaS: undefined }, "x  warm-up  elapsed 0:01"],
    [{ label: "x", rep: -1, reps: 3, elapsedS: 1, etaS: undefined }, "x  probe  elapsed 0:01"],
  ])("formatProgress %#", (state, text) => {
    expect(formatProgress(state)).toBe(text);
  });

  it.each([
    [10, 0, 100, undefined],
    [10, 5, 100, 190],
    [10, 100, 100, 0],
  ])("estimateRemaining(%d, %d, %d)", (elapsed, done, total, eta) => {
    expect(estimateRemaining(elapsed, done, total)).toBe(eta);
  });

  it("prints plain lines when not on a terminal, redraws in place on one", () => {
    const plain: string[] = [];
    const p = new Progress({ write: (t) => plain.push(t) > 0 }, 100, false);
    p.step("a", 1, 3);
    p.line("done");
    p.finish();
    expect(plain.join("")).toMatch(/^a {2}rep 1\/3 {2}elapsed 0:00\ndone\n$/);

    const tty: string[] = [];
    const t = new Progress({ write: (s) => tty.push(s) > 0 }, 100, true);
    t.step("a", 1, 3);
    t.line("done");
    t.finish();
    expect(tty.join("")).toContain("\r\x1b[2Ka  rep 1/3");
    expect(tty.join("")).toContain("\r\x1b[2Kdone\n");
    expect(tty.join("")).not.toMatch(/\n$/);

    const narrow: string[] = [];
    const n = new Progress({ write: (s) => narrow.push(s) > 0, columns: 30 }, 100, true);
    n.step("a-very-long-scenario-name-default nginx", 1, 3);
    n.finish();
    expect(narrow[0]).toBe("\r\x1b[2Ka-very-long-scenario-name-def");
  });
});

describe("small parsers", () => {
  it.each([
    ["2026/11/21 listening on 127.0.0.1:39017\n", { host: "127.0.0.1", port: 39017 }],
    ["starting\n", undefined],
    ["grpc listening on 127.0.0.1:39018\nlistening on 127.0.0.1:39017\n", { host: "127.0.0.1", port: 39017 }],
    ["grpc listening on 127.0.0.1:39018\n", undefined],
    [
      "grpcs listening on 127.0.0.1:39019\nlistening on 127.0.0.1:39017\n",
      { host: "127.0.0.1", port: 39017 },
    ],
    [
      "https listening on 127.0.0.1:39020\nlistening on 127.0.0.1:39017\n",
      { host: "127.0.0.1", port: 39017 },
    ],
  ])("parseListening %#", (text, addr) => {
    expect(parseListening(text)).toEqual(addr);
  });

  it.each([
    ["listening on 127.0.0.1:39017\ngrpc listening on 127.0.0.1:39018\n", { host: "127.0.0.1", port: 39018 }],
    ["listening on 127.0.0.1:39017\n", undefined],
    ["grpcs listening on 127.0.0.1:39019\n", undefined],
  ])("parseListening grpc %#", (text, addr) => {
    expect(parseListening(text, "grpc")).toEqual(addr);
  });

  it.each([
    [
      "grpc listening on 127.0.0.1:39018\ngrpcs listening on 127.0.0.1:39019\n",
      { host: "127.0.0.1", port: 39019 },
    ],
    ["grpc listening on 127.0.0.1:39018\n", undefined],
  ])("parseListening grpcs %#", (text, addr) => {
    expect(parseListening(text, "grpcs")).toEqual(addr);
  });

  it.each([
    [
      "listening on 127.0.0.1:39017\nhttps listening on 127.0.0.1:39020\n",
      { host: "127.0.0.1", port: 39020 },
    ],
    ["listening on 127.0.0.1:39017\n", undefined],
  ])("parseListening https %#", (text, addr) => {
    expect(parseListening(text, "https")).toEqual(addr);
  });

  it.each([
    ["nginx version: nginx/1.22.1\n", "nginx/([0-9][0-9.]*)", "1.22.1"],
    [
      "HAProxy version 2.6.12-1+deb12u4 2026/10/17 - https://haproxy.org/",
      "HAProxy version ([0-9][0-9.]*)",
      "2.6.12",
    ],
    ["nothing", "x(\\d)", undefined],
  ])("parseVersion %#", (out, pattern, v) => {
    expect(parseVersion(out, pattern)).toBe(v);
  });

  it("tailOf keeps the last non-empty lines", () => {
    expect(tailOf("a\n\nb\nc\n\n", 2)).toBe("b\nc");
  });
});

describe("repetitions", () => {
  const m = {
    ...failedMeasurement("x"),
    durationS: 2.01,
    rps: 1000,
    requests: 2010,
    statusCodes: { "200": 2010 },
    latencyMs: { min: 0.1, mean: 1, p50: 0.9, p90: 1.5, p95: 2, p99: 3, max: 9 },
    raw: ["s.k6.json"],
    engineErrors: [],
    exitCode: 0,
    loadgenCpu: 0.5,
  };

  it("maps a measurement to a valid repetition, raw paths under raw/", () => {
    const r = toRepetition(1, "2026-11-21T13:00:00.000Z", m, { status: "ok", reasons: [] }, 2.2);
    expect(Repetition.parse(r)).toMatchObject({
      index: 1,
      rps: 1000,
      loadgenCpu: 0.5,
      raw: ["raw/s.k6.json"],
    });
    expect(r.proxyCost).toBeUndefined();
    expect(describeRepetition("c", 1, 3, r)).toBe("c rep 2/3: 1000 req/s, p99 3.00 ms, ok");
  });

  it("records the proxy's cost unrounded, its cores over the window, and the run line shows it", () => {
    const cost = {
      source: "proc" as const,
      cpuS: 0.0831234,
      idleCpuS: 0.0001,
      windowS: 2.01,
      cpuPerRequestUs: 41.3549,
      requestsPerCpuS: 24181.1,
      peakMemoryMiB: 12.43,
      peakSince: "repetition" as const,
    };
    const r = toRepetition(1, "2026-11-21T13:00:00.000Z", m, { status: "ok", reasons: [] }, 2.2, cost);
    expect(Repetition.parse(r)).toMatchObject({ proxyCost: cost });
    expect(r.proxyCpu).toBe(0.0831234 / 2.01);
    expect(describeRepetition("c", 1, 3, r)).toBe(
      "c rep 2/3: 1000 req/s, p99 3.00 ms, proxy 41.4 µs CPU/request, 12.4 MiB peak, ok",
    );
  });

  it("a repetition's line names its status once, before its reasons", () => {
    const classify = (status: "noisy" | "invalid", reason: string) =>
      toRepetition(0, "2026-11-21T13:00:00.000Z", m, { status, reasons: [reason] }, 2.2);
    const noisy = classify("noisy", "0.40 core used by other processes, still after 2 more tries");
    expect(describeRepetition("c", 0, 3, noisy)).toBe(
      "c rep 1/3: 1000 req/s, p99 3.00 ms, noisy: 0.40 core used by other processes, still after 2 more tries",
    );
    const invalid = classify("invalid", "3 non-2xx responses (404)");
    expect(describeRepetition("c", 0, 3, invalid)).toBe(
      "c rep 1/3: 1000 req/s, p99 3.00 ms, invalid: 3 non-2xx responses (404)",
    );
  });

  it("an engine that threw still gives a valid, failed-looking repetition", () => {
    const r = toRepetition(
      0,
      "2026-11-21T13:00:00.000Z",
      failedMeasurement("k6 failed: boom"),
      { status: "failed", reasons: [] },
      0.5,
    );
    expect(Repetition.parse(r)).toMatchObject({
      durationS: 0.5,
      status: "failed",
      reasons: ["k6 failed: boom"],
    });
  });
});

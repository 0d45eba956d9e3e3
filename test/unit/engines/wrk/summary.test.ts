import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { normaliseWrkSummary } from "../../../../src/engines/wrk/summary.js";
import { UserError } from "../../../../src/util/errors.js";
import { FIXTURES, fixtureJson } from "../../../support/engines/fixtures.js";

describe("normaliseWrkSummary on real wrk outputs", () => {
  async function load(name: string) {
    const json = await fixtureJson(`wrk/${name}.json`);
    return {
      json: json as { requests: number; duration_us: number; errors: Record<string, number> },
      m: normaliseWrkSummary(json, `${name}.json`),
    };
  }

  it("clean: the same figures wrk printed", async () => {
    const { json, m } = await load("clean");
    const text = await readFile(path.join(FIXTURES, "wrk", "clean.txt"), "utf8");
    const printed = Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1]);
    expect(m.rps).toBeCloseTo(printed, 0);
    expect(m.requests).toBe(json.requests);
    expect(m.durationS).toBe(json.duration_us / 1e6);
    expect(m.errors).toBe(0);
    expect(m.non2xx).toBe(0);
    expect(m.statusCodes).toEqual({});
    const { min, p50, p99, max } = m.latencyMs;
    expect(min).toBeLessThanOrEqual(p50);
    expect(p50).toBeLessThanOrEqual(p99);
    expect(p99).toBeLessThanOrEqual(max);
    expect(m.latencyPercentilesMs["99.9"]).toBeGreaterThanOrEqual(p99);
  });

  it("not-found: status errors are non-2xx and not throughput", async () => {
    const { json, m } = await load("not-found");
    expect(m.non2xx).toBe(json.errors.status);
    expect(m.non2xx).toBe(json.requests);
    expect(m.rps).toBe(0);
  });

  it("json-lookup: several requests per connection cycle", async () => {
    const { m } = await load("json-lookup");
    expect(m.requests).toBeGreaterThan(0);
    expect(m.non2xx).toBe(0);
    expect(m.bytesReceived / m.requests).toBeGreaterThan(3000);
  });

  it("refused-mid-run: socket errors are transport errors", async () => {
    const { json, m } = await load("refused-mid-run");
    const transport = json.errors.connect! + json.errors.read! + json.errors.write! + json.errors.timeout!;
    expect(transport).toBeGreaterThan(0);
    expect(m.errors).toBe(transport);
    expect(m.statusCodes).toEqual({ "0": transport });
    expect(m.requests).toBe(json.requests + transport);
  });

  it("rejects a summary with a missing field, naming the file and the field", () => {
    const json = {
      requests: 1,
      duration_us: 1,
      bytes: 1,
      errors: { connect: 0, read: 0, write: 0, status: 0 },
      latency_us: {},
    };
    expect(() => normaliseWrkSummary(json, "w.json")).toThrow(UserError);
    expect(() => normaliseWrkSummary(json, "w.json")).toThrow(/^w\.json: errors\.timeout: /m);
    expect(() => normaliseWrkSummary(json, "w.json")).toThrow(/w\.json: latency_us\.min: /);
  });

  it("rejects a summary without the p99 percentile", async () => {
    const json = (await fixtureJson("wrk/clean.json")) as {
      latency_us: { percentiles: Record<string, number> };
    };
    delete json.latency_us.percentiles["99"];
    expect(() => normaliseWrkSummary(json, "w.json")).toThrow("w.json: latency_us.percentiles.99: missing");
  });
});

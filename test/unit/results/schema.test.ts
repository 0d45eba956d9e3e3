import { readFile } from "node:fs/promises";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readResults } from "../../../src/results/io.js";
import { resultsJsonSchema } from "../../../src/results/json-schema.js";
import { cellKey, worstStatus, type CellStatus } from "../../../src/results/schema.js";
import { UserError } from "../../../src/util/errors.js";

describe("results.schema.json", () => {
  it("is the schema generated from src/results/schema.ts (run `npm run schema` after a change)", async () => {
    const published = JSON.parse(await readFile("results.schema.json", "utf8")) as unknown;
    expect(published).toEqual(resultsJsonSchema());
  });
});

describe("worstStatus", () => {
  it.each<[CellStatus[], CellStatus]>([
    [[], "ok"],
    [["ok", "ok"], "ok"],
    [["ok", "loadgen-bound"], "loadgen-bound"],
    [["loadgen-bound", "invalid", "ok"], "invalid"],
    [["invalid", "failed"], "failed"],
  ])("%j -> %s", (statuses, expected) => {
    expect(worstStatus(statuses)).toBe(expected);
  });
});

describe("readResults", () => {
  it("names the file and the field of a schema problem", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "pb-results-"));
    await writeFile(path.join(dir, "results.json"), JSON.stringify({ schemaVersion: 1, cells: [{}] }));
    const err = await readResults(dir).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UserError);
    const message = (err as Error).message;
    expect(message).toContain(path.join(dir, "results.json"));
    expect(message).toMatch(/cells\[0\]\.proxy/);
    expect(message).toMatch(/tool/);
  });

  it("rejects a file that is not JSON, naming it", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "pb-results-"));
    await writeFile(path.join(dir, "results.json"), "{ not json");
    await expect(readResults(dir)).rejects.toThrow(/results\.json: not valid JSON/);
  });
});

describe("cellKey", () => {
  const load = { label: "default", model: "constant-vus" as const };
  it.each([
    [undefined, "rest/default/nginx/k6"],
    ["grpc" as const, "rest/default/nginx/k6"],
    ["https" as const, "rest/default/nginx+https/k6"],
    ["h2" as const, "rest/default/nginx+h2/k6"],
    ["grpcs" as const, "rest/default/nginx+grpcs/k6"],
  ])("protocol %s: %s (a cell over TLS is told from its cleartext twin)", (protocol, key) => {
    expect(cellKey({ scenario: "rest", load, proxy: "nginx", engine: "k6", protocol })).toBe(key);
  });
});

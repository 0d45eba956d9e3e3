import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readH2loadLog } from "../../../../src/engines/h2load/log.js";

// h2load's --log-file format (nghttp2 1.52): start µs since epoch, status (-1: failed stream), µs.
let tmp: string;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), "pb-h2load-"));
});

afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

async function logOf(lines: string[]): Promise<string> {
  const file = path.join(tmp, `log-${lines.length}.tsv`);
  await writeFile(file, lines.map((l) => `${l}\n`).join(""));
  return file;
}

describe("readH2loadLog", () => {
  it("counts every status, failed streams as transport errors, latency of 2xx only", async () => {
    const file = await logOf([
      "1763900000000000\t200\t1000",
      "1763900000000100\t200\t3000",
      "1763900000000200\t200\t2000",
      "1763900000000300\t503\t500",
      "1763900000000400\t-1\t10000",
    ]);
    const figures = await readH2loadLog(file, 2);
    expect(figures).toMatchObject({
      durationS: 2,
      rps: 1.5,
      requests: 5,
      errors: 1,
      non2xx: 1,
      checkFailures: 0,
      statusCodes: { "200": 3, "503": 1, "0": 1 },
      droppedIterations: 0,
    });
    expect(figures.latencyMs).toMatchObject({ min: 1, mean: 2, p50: 2, max: 3 });
  });

  it("a line that is not h2load's names the file and line", async () => {
    const file = await logOf(["1763900000000000\t200\t1000", "garbage"]);
    await expect(readH2loadLog(file, 1)).rejects.toThrow(`${file}:2: not an h2load log line`);
  });
});

import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { logTail } from "../../../src/util/logs.js";

describe("logTail", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "proxybench-logtail-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("returns the last lines of a large log", async () => {
    const file = path.join(dir, "big.log");
    const lines = Array.from({ length: 200_000 }, (_, i) => `warning ${i}: request failed`);
    await writeFile(file, lines.join("\n") + '\nlevel=error msg="test aborted"\n');
    expect(await logTail(file, 2)).toBe('warning 199999: request failed\nlevel=error msg="test aborted"');
  });

  it("returns a short log whole", async () => {
    const file = path.join(dir, "short.log");
    await writeFile(file, "one\ntwo\n");
    expect(await logTail(file, 5)).toBe("one\ntwo");
  });

  it("returns an empty string for a missing log", async () => {
    expect(await logTail(path.join(dir, "missing.log"))).toBe("");
  });
});

import { mkdtemp, readdir, readFile, rm, symlink } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readResults } from "../../../src/results/io.js";
import { SCHEMA_VERSION, type Results } from "../../../src/results/schema.js";
import { AtomicFile, ResultsFile } from "../../../src/runner/results-file.js";
import { createRuntime, parseRuntimeKind } from "../../../src/runner/runtime-factory.js";

const results = (runId: string): Results => ({
  schemaVersion: SCHEMA_VERSION,
  tool: { name: "proxybench", version: "0.0.0" },
  runId,
  startedAt: "2026-11-21T13:00:00.000Z",
  settings: {
    proxies: ["direct"],
    scenarios: ["passthrough"],
    repetitions: 1,
    cpus: { loadgen: [0], proxy: [0], upstream: [0] },
    runtime: "native",
  },
  environment: {
    os: "x",
    kernel: "x",
    arch: "x64",
    cpuModel: "x",
    cores: 1,
    loadAverage: [0, 0, 0],
    node: "v20",
    tools: {},
    proxies: {},
    git: {},
  },
  skipped: [],
  cells: [],
});

describe("ResultsFile", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "pb-results-"));
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it("writes in order, leaves no temporary file, and ignores saves after the final one", async () => {
    const file = new ResultsFile(path.join(dir, "a"));
    await Promise.all([file.save(results("1")), file.save(results("2")), file.save(results("3"), true)]);
    await file.save(results("4"));
    expect((await readResults(file.dir)).runId).toBe("3");
    expect(await readdir(file.dir)).toEqual(["results.json"]);
  });

  it("a text file (a counted run's instructions.md): the final save, made while another is under way, waits for it and is whole", async () => {
    const file = new AtomicFile(path.join(dir, "md"), "instructions.md", (line: string) =>
      line.repeat(200_000),
    );
    const earlier = file.save("| nginx | 1 |\n");
    await file.save("| nginx | 2 |\n", true);
    await earlier;
    await file.save("| nginx | 3 |\n");
    expect(await readFile(file.file, "utf8")).toBe("| nginx | 2 |\n".repeat(200_000));
    expect(await readdir(file.dir)).toEqual(["instructions.md"]);
  });

  it("a full disk: the error names results.json, the temporary file goes, the last results stay", async () => {
    const file = new ResultsFile(path.join(dir, "full"));
    await file.save(results("1"));
    const before = await readFile(file.file, "utf8");
    // Writes to /dev/full fail with ENOSPC: the temporary file is a link to it.
    await symlink("/dev/full", `${file.file}.tmp-${process.pid}`);
    await expect(file.save(results("2"))).rejects.toThrow(
      `${file.file}: cannot write the results (ENOSPC: no space left on device, write)`,
    );
    expect(await readdir(file.dir)).toEqual(["results.json"]);
    expect(await readFile(file.file, "utf8")).toBe(before);
    // the queue is not stuck on the failure: the next save writes
    await file.save(results("3"));
    expect((await readResults(file.dir)).runId).toBe("3");
  });

  it("refuses to write results that do not match the schema", () => {
    const file = new ResultsFile(path.join(dir, "b"));
    expect(() => file.save({ ...results("x"), runId: 5 } as unknown as Results)).toThrow(/runId/);
  });
});

describe("runtime selection", () => {
  it("native is built in; an unknown runtime names the flag", () => {
    expect(createRuntime("native").kind).toBe("native");
    expect(parseRuntimeKind("docker")).toBe("docker");
    expect(() => parseRuntimeKind("podman")).toThrow("--runtime: 'podman' is not a runtime (native, docker)");
  });
});

import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { READ_VERSIONS } from "../../../src/results/io.js";
import { runCli } from "../../support/commands/cli.js";

const BASE = "test/fixtures/actions/base";
const HEAD = "test/fixtures/actions/head";

describe("proxybench compare: bad input names what is wrong", () => {
  let newer: string;
  beforeAll(async () => {
    const root = await mkdtemp(path.join(tmpdir(), "pb-compare-"));
    newer = path.join(root, "newer");
    await mkdir(newer);
    const text = await readFile(path.join(HEAD, "results.json"), "utf8");
    await writeFile(
      path.join(newer, "results.json"),
      text.replace(/"schemaVersion": \d+/, '"schemaVersion": 9'),
    );
  });

  it("the schema versions it reads come from the schema", () => {
    expect(READ_VERSIONS).toEqual([1, 2]);
  });

  it.each([
    ["alone", () => [newer]],
    ["as head, a valid base", () => [BASE, newer]],
    ["as head, the files named", () => [`${BASE}/results.json`, `${newer}/results.json`]],
    ["as base, the files named", () => [`${newer}/results.json`, `${HEAD}/results.json`]],
  ])("an unknown schemaVersion %s: one line naming the versions it reads, exit 2", async (_, dirs) => {
    const { code, out } = await runCli(["compare", ...dirs()]);
    expect(code).toBe(2);
    expect(out).toBe(
      `proxybench: ${path.join(newer, "results.json")}: schemaVersion: 9: this proxybench reads schemaVersion 1 and 2 (the file was written by a newer proxybench)\n`,
    );
  });

  it.each([
    ["--floor", "abc"],
    ["--floor", "1"],
    ["--spread-factor", "2"],
  ])("%s %s on wall-clock runs is refused, pointing to --threshold", async (flag, value) => {
    const { code, out } = await runCli(["compare", BASE, HEAD, flag, value]);
    expect(code).toBe(2);
    expect(out).toBe(
      `proxybench: ${flag} applies to counted runs (proxybench count); these are wall-clock runs: their smallest change that counts is --threshold\n`,
    );
  });

  it("two results.json named as files are compared as wall-clock runs", async () => {
    const { code, out } = await runCli(["compare", `${BASE}/results.json`, `${HEAD}/results.json`]);
    expect(code, out).toBe(0);
    expect(out).toContain("nginx");
  });
});

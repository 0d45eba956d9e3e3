import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseDataJs } from "../../../src/publish/datajs.js";
import { publish } from "../../../src/publish/publish.js";
import type { Results } from "../../../src/results/schema.js";
import { bareRepo, checkout } from "../../support/publish/git-support.js";
import { fixtureResults } from "../../support/publish/fixtures.js";

async function dataJsAfter(resultsDir: string | string[], variant?: string): Promise<unknown> {
  const bare = await bareRepo();
  await publish({
    resultsDir,
    ...(variant !== undefined ? { variant } : {}),
    remote: bare,
    branch: "gh-pages",
    dir: "bench",
    retries: 0,
    context: {},
    now: () => Date.parse("2026-11-21T15:00:00Z"),
  });
  const work = await checkout(bare, "gh-pages");
  return parseDataJs(await readFile(path.join(work, "bench/data.js"), "utf8"), "data.js").entries;
}

async function write(results: Results, name: string, root: string): Promise<string> {
  const dir = path.join(root, name);
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, "results.json"), JSON.stringify(results));
  return dir;
}

describe("publish the head of a variant run split into shards", () => {
  it("publishes the same history as the head measured alone", async () => {
    const root = await mkdtemp(path.join(tmpdir(), "pb-publish-shards-"));
    const plain = fixtureResults();
    const alone = await dataJsAfter(await write(plain, "alone", root));

    const half = Math.ceil(plain.cells.length / 2);
    const shards = [plain.cells.slice(0, half), plain.cells.slice(half)].map((cells, i) => {
      const r = fixtureResults();
      r.settings.variants = [
        { name: "base", dir: "/w/base" },
        { name: "head", dir: "/w/head" },
      ];
      r.settings.shard = { index: i + 1, count: 2 };
      r.environment.hostname = `bench-${i + 1}`;
      r.cells = cells.flatMap((c) => [
        {
          ...c,
          id: `${c.id}@base`,
          variant: "base",
          repetitions: c.repetitions.map((x) => ({ ...x, rps: 1 })),
        },
        { ...c, id: `${c.id}@head`, variant: "head" },
      ]);
      return r;
    });
    // As bench.yml downloads them: one folder per shard artifact, under one folder.
    const downloads = path.join(root, "downloads");
    for (const [i, r] of shards.entries()) await write(r, `proxybench-results-${i + 1}`, downloads);
    expect(await dataJsAfter(downloads, "head")).toEqual(alone);
    await expect(dataJsAfter(downloads)).rejects.toThrow(/--variant: this run holds the variants base, head/);
  }, 60_000);
});

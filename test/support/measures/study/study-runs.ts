import { cp, mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Results } from "../../../../src/results/schema.js";
import { PROJECT_ROOT } from "../../../../src/util/paths.js";

/**
 * Study run folders for the tests of `report` and the PR comment, from the real runs in
 * test/fixtures/studies/: the extensibility study's (one folder per test) and the LLRP study's
 * (its results.json at the top), laid out as `proxybench study` writes them.
 */

const FIXTURES = path.join(PROJECT_ROOT, "test", "fixtures", "studies");
const EXTENSIBILITY_RUN = path.join(FIXTURES, "extensibility-run");

/** The place the fixture's study.md names its results folders by (the run's --out). */
const RUN_DIR_PLACEHOLDER = "RUN_DIR";

/** The extensibility run copied to `dir`; returns its study.md as it would read there. */
export async function extensibilityRun(dir: string): Promise<string> {
  await cp(EXTENSIBILITY_RUN, dir, { recursive: true });
  const studyMd = await readFile(path.join(dir, "study.md"), "utf8");
  return studyMd.replaceAll(RUN_DIR_PLACEHOLDER, dir);
}

/** The LLRP study's results as its run leaves them: `dir`/results.json. */
export async function llrpRun(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await cp(path.join(FIXTURES, "llrp.results.json"), path.join(dir, "results.json"));
}

/** Rewrites every results.json under `dir` (one level down too) with `change`. */
export async function editResults(dir: string, change: (results: Results) => void): Promise<void> {
  const files = [path.join(dir, "results.json")];
  for (const e of await readdir(dir, { withFileTypes: true }))
    if (e.isDirectory()) files.push(path.join(dir, e.name, "results.json"));
  for (const file of files) {
    const text = await readFile(file, "utf8").catch(() => undefined);
    if (text === undefined) continue;
    const results = JSON.parse(text) as Results;
    change(results);
    await writeFile(file, JSON.stringify(results));
  }
}

/** Text no markdown of ours may show as it is: a mention, a reference, HTML, a table cell's end. */
export const HOSTILE = "@someone see #12 <img src=x onerror=alert(1)> a|b";

import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { parse, stringify } from "yaml";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import * as engines from "../../../../src/engines/index.js";
import type { Runtime } from "../../../../src/runner/runtime.js";
import type { ExtensibilityOutcome } from "../../../../src/measures/study/extensibility/run.js";
import { readStudyRun } from "../../../../src/measures/study/read-run.js";
import { runStudy } from "../../../../src/measures/study/study.js";
import { PROJECT_ROOT } from "../../../../src/util/paths.js";

// A study run's folder read back: the extensibility study run through the runner (under
// --runtime docker with a stand-in runtime that starts nothing, so no row is measured), then its
// folder rendered again from the results.json files alone is the study.md the run wrote, the
// options the gateway cannot run (the router's licensed coprocessors) included.

const sink = () => ({ write: () => true });
let root: string;
let licence: string | undefined;

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), "pb-read-run-"));
  licence = process.env.APOLLO_ROUTER_LICENSE;
  delete process.env.APOLLO_ROUTER_LICENSE;
});
afterEach(async () => {
  if (licence !== undefined) process.env.APOLLO_ROUTER_LICENSE = licence;
  await rm(root, { recursive: true, force: true });
});

/** The built-in extensibility study with only these tests. */
async function studyWith(tests: string[]): Promise<string> {
  const studies = path.join(root, "studies");
  await cp(path.join(PROJECT_ROOT, "studies", "extensibility"), path.join(studies, "extensibility"), {
    recursive: true,
  });
  const file = path.join(studies, "extensibility", "study.yml");
  const study = parse(await readFile(file, "utf8")) as Record<string, unknown>;
  study.scenarios = tests;
  await writeFile(file, stringify(study));
  return studies;
}

describe("readStudyRun", () => {
  it("renders an extensibility run's folder as the study.md its run wrote, skipped options included", async () => {
    const runtime: Runtime = { kind: "docker", start: () => Promise.reject(new Error("no engine here")) };
    const out = path.join(root, "out");
    const outcome = (await runStudy(
      "extensibility",
      {
        runtime: "docker",
        imageTag: "ci",
        proxies: ["apollo-router"],
        repetitions: 1,
        durationS: 1,
        warmupS: 0,
        cpus: "loadgen=0,proxy=1,upstream=1",
        out,
      },
      {
        engines,
        runtime,
        cores: 2,
        studiesDir: await studyWith(["graphql-static-header", "graphql-guid-response"]),
        stdout: sink(),
        stderr: sink(),
        handleSignals: false,
      },
    )) as ExtensibilityOutcome;
    expect(outcome.markdown).toMatch(/^- \*\*go\*\* is skipped: the router's coprocessor plugin/m);
    expect(outcome.markdown).toMatch(/^- \*\*config\*\* is skipped: header rules insert fixed values/m);
    const read = await readStudyRun(out);
    expect(read?.name).toBe("extensibility");
    expect(read?.dirs).toEqual([
      path.join(out, "graphql-guid-response-apollo-router"),
      path.join(out, "graphql-static-header-apollo-router"),
    ]);
    expect(read?.markdown).toBe(await readFile(path.join(out, "study.md"), "utf8"));
  });
});

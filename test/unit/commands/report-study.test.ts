import { cp, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../../support/commands/cli.js";
import { editResults, extensibilityRun, HOSTILE, llrpRun } from "../../support/measures/study/study-runs.js";

// `proxybench report STUDY-RUN`: the study's table, rendered again from the run's results.json
// files by the study's own renderer (the same text as its study.md), never study.md itself.

let tmp: string;
beforeEach(async () => {
  tmp = await mkdtemp(path.join(tmpdir(), "pb-report-study-"));
});
afterEach(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe("report on a study run", () => {
  it("prints the extensibility study's tables, one folder per test, the same as its study.md", async () => {
    const dir = path.join(tmp, "extensibility-run");
    const studyMd = await extensibilityRun(dir);
    const { code, out } = await runCli(["report", dir]);
    expect(code).toBe(0);
    expect(out).toContain("(study extensibility)");
    expect(out).toContain("### graphql-static-header · apollo-router");
    expect(out).toMatch(/^\| baseline /m);
    expect(out).toMatch(/^- \*\*go\*\* is skipped: the router's coprocessor plugin/m);
    // A test that no extension option of the gateway does has no run, so no results.json: its
    // "nothing to compare" section is in study.md only.
    const measured = studyMd.slice(0, studyMd.indexOf("\n\n### graphql-client-awareness"));
    expect(out).toBe(`${measured}\n`);
  });

  it("renders from the results, not from study.md", async () => {
    const dir = path.join(tmp, "extensibility-run");
    await extensibilityRun(dir);
    await rm(path.join(dir, "study.md"));
    const { code, out } = await runCli(["report", dir]);
    expect(code).toBe(0);
    expect(out).toContain("### graphql-guid-response · apollo-router");
  });

  it("prints the LLRP study's crank compare table from a run whose results.json is its own", async () => {
    const dir = path.join(tmp, "llrp-run");
    await llrpRun(dir);
    const { code, out } = await runCli(["report", dir]);
    expect(code).toBe(0);
    expect(out).toMatch(/^## .* \(study llrp\)$/m);
    expect(out).toMatch(/^\| Mean latency \(us\) /m);
  });

  it("escapes hostile names and reasons from the results", async () => {
    const dir = path.join(tmp, "extensibility-run");
    await extensibilityRun(dir);
    await editResults(dir, (r) => {
      r.skipped.push({ proxy: HOSTILE, scenario: r.settings.scenarios[0] ?? "", reason: HOSTILE });
      const [first] = r.cells;
      if (first === undefined) throw new Error("the fixture has no cell");
      first.reasons.push(HOSTILE);
      first.status = "invalid";
    });
    const { code, out } = await runCli(["report", dir]);
    expect(code).toBe(0);
    expect(out).toContain("@\u200Bsomeone");
    expect(out).toContain("#\u200B12");
    expect(out).toContain("&lt;img");
    expect(out).toContain("a\\|b");
    expect(out).not.toContain("@someone");
    expect(out).not.toContain("<img");
  });

  it("refuses two studies in one folder, naming each study's files", async () => {
    await extensibilityRun(path.join(tmp, "extensibility"));
    await mkdir(path.join(tmp, "mixed"));
    await llrpRun(path.join(tmp, "mixed", "llrp"));
    await extensibilityRun(path.join(tmp, "ext-copy"));
    await cp(
      path.join(tmp, "ext-copy", "graphql-static-header-apollo-router"),
      path.join(tmp, "mixed", "ext"),
      {
        recursive: true,
      },
    );
    const { code, out } = await runCli(["report", path.join(tmp, "mixed")]);
    expect(code).not.toBe(0);
    expect(out).toContain("results of 2 different studies");
    expect(out).toContain(`study llrp: ${path.join(tmp, "mixed", "llrp", "results.json")}`);
    expect(out).toContain(`study extensibility: ${path.join(tmp, "mixed", "ext", "results.json")}`);
  });

  it("refuses a study run mixed with a plain run, naming the plain run's file", async () => {
    const dir = path.join(tmp, "extensibility-run");
    await extensibilityRun(dir);
    await llrpRun(path.join(dir, "plain"));
    await editResults(path.join(dir, "plain"), (r) => delete r.settings.study);
    const { code, out } = await runCli(["report", dir]);
    expect(code).not.toBe(0);
    expect(out).toContain("a study run mixed with plain runs");
    expect(out).toContain(`no study: ${path.join(dir, "plain", "results.json")}`);
  });

  it("refuses flags a study's table has no place for", async () => {
    const dir = path.join(tmp, "extensibility-run");
    await extensibilityRun(dir);
    const html = await runCli(["report", dir, "--format", "html"]);
    expect(html.code).not.toBe(0);
    expect(html.out).toContain("--format html");
    const baseline = await runCli(["report", dir, "--baseline-proxy", "nginx"]);
    expect(baseline.code).not.toBe(0);
    expect(baseline.out).toContain("--baseline-proxy");
  });
});

import { describe, expect, it } from "vitest";
import { buildPrComment } from "../../../src/comment/pr-comment.js";
import { InstructionsResults } from "../../../src/measures/counted/schema.js";
import { cell, results } from "../../support/report/build.js";

/** A counted run of nginx, one repetition, natively or in its image. */
function countedRun(runtime?: "docker"): InstructionsResults {
  return InstructionsResults.parse({
    schemaVersion: 1,
    measure: "instructions",
    runId: "r1",
    startedAt: "2026-11-26T04:00:00.000Z",
    settings: {
      proxies: ["nginx"],
      scenarios: ["passthrough"],
      repetitions: 1,
      requests: 1000,
      warmupRequests: 200,
      connections: 2,
      cpus: { loadgen: [0], proxy: [1], upstream: [1] },
      ...(runtime === undefined ? {} : { runtime }),
      valgrind: "3.19.0",
    },
    cells: [
      {
        id: "passthrough/nginx",
        proxy: "nginx",
        scenario: "passthrough",
        status: "ok",
        reasons: [],
        repetitions: [
          {
            index: 0,
            startedAt: "2026-11-26T04:00:01.000Z",
            status: "ok",
            reasons: [],
            requests: 1000,
            failures: 0,
            statusCodes: { "200": 1000 },
            instructionsPerRequest: 19772,
            wallS: 3,
          },
        ],
      },
    ],
  });
}

describe("the PR comment's counted section says which binary was counted", () => {
  it("natively: the installed proxy, so a change to its source needs count-in: images", () => {
    const { markdown } = buildPrComment({ counted: { head: countedRun() } });
    expect(markdown).toContain("as installed on the runner (count-in: native)");
    expect(markdown).toContain("a change to their source only with count-in: images");
  });

  it("in images: each side's image built from its Dockerfile, so its code changes are counted", () => {
    const { markdown } = buildPrComment({ counted: { head: countedRun("docker") } });
    expect(markdown).toContain("ran in each side's image, built from its Dockerfile with Valgrind added");
    expect(markdown).not.toContain("count-in: native");
  });
});

describe("a report that lacks what was expected", () => {
  /** base and head of nginx as variants, the head's p50 `factor` times the base's in every round. */
  function pairedRun(factor: number) {
    const rounds = (p50: number) =>
      Array.from({ length: 12 }, (_, i) => ({ rps: 1000, p50: p50 * (1 + i / 100) }));
    const run = results([
      cell("nginx", rounds(5), { variant: "base" }),
      cell("nginx", rounds(5 * factor), { variant: "head" }),
    ]);
    run.settings.variants = [
      { name: "base", dir: "/w/base" },
      { name: "head", dir: "/w/head" },
    ];
    return run;
  }

  it("is inconclusive even beside an improvement (what is missing could hide a regression), and says why under the headline", () => {
    const whole = buildPrComment({ wallClock: { head: pairedRun(0.8) } });
    expect(whole.verdict).toBe("improved");
    const missing = ["the job count failed", "wall-clock shard 2 of 2 missing"];
    const lacking = buildPrComment({ wallClock: { head: pairedRun(0.8) }, missing });
    expect(lacking.verdict).toBe("inconclusive");
    expect(lacking.shortfall).toBe("the job count failed; wall-clock shard 2 of 2 missing");
    const [headline, note] = lacking.markdown.split("\n\n");
    expect(headline).toMatch(/^## proxybench: \*\*inconclusive\*\*/);
    expect(note).toMatch(
      /^> \[!WARNING\]\n> Incomplete: the job count failed; wall-clock shard 2 of 2 missing\./,
    );
    // A regression still wins: it is known whatever else is missing.
    expect(buildPrComment({ wallClock: { head: pairedRun(1.2) }, missing }).verdict).toBe("regressed");
  });

  it("escapes what is missing (a job's name is the workflow's text) in the warning under the headline", () => {
    const missing = ["the job <img src=x onerror=alert(1)> [link](http://x) @someone failed"];
    const { markdown } = buildPrComment({ wallClock: { head: pairedRun(0.8) }, missing });
    expect(markdown).toContain("> Incomplete: the job ");
    expect(markdown).not.toContain("<img");
    expect(markdown).not.toContain("](http://x)");
    expect(markdown).not.toContain("@someone");
  });
});

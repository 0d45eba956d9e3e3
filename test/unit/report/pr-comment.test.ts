import { describe, expect, it } from "vitest";
import { buildPrComment } from "../../../src/report/pr-comment.js";
import { InstructionsResults } from "../../../src/instructions/schema.js";

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

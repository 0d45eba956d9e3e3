import { describe, expect, it } from "vitest";
import { diesWithParent } from "../../../src/util/child-guard.js";
import { pinnedCommand } from "../../../src/util/processes.js";

// Real child processes (groups, CPU counts, runCommand) are in test/processes/util/process-groups.test.ts.

describe("pinnedCommand", () => {
  it.each<[number[] | undefined, [string, string[]]]>([
    [undefined, ["k6", ["run", "x.js"]]],
    [[], ["k6", ["run", "x.js"]]],
    [[0], ["taskset", ["-c", "0", "k6", "run", "x.js"]]],
    [
      [2, 3],
      ["taskset", ["-c", "2,3", "k6", "run", "x.js"]],
    ],
  ])("cpus %j", (cpus, expected) => {
    expect(pinnedCommand("k6", ["run", "x.js"], cpus)).toEqual(expected);
  });
});

describe("diesWithParent", () => {
  it("starts the command through setpriv --pdeathsig KILL where it works, as is elsewhere", () => {
    expect(diesWithParent("taskset", ["-c", "0", "k6"], true)).toEqual([
      "setpriv",
      ["--pdeathsig", "KILL", "--", "taskset", "-c", "0", "k6"],
    ]);
    expect(diesWithParent("k6", ["run"], false)).toEqual(["k6", ["run"]]);
  });
});

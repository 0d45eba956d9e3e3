import { describe, expect, it } from "vitest";
import {
  checkCores,
  checkGovernor,
  checkLoad,
  checkNofile,
  checkTuning,
  doctorExitCode,
  parseNofile,
  renderChecks,
} from "../../../src/doctor/checks.js";
import type { Check } from "../../../src/doctor/check.js";

describe("doctor checks", () => {
  it.each([
    [checkCores(1), "warn"],
    [checkCores(2), "ok"],
    [checkGovernor(undefined), "ok"],
    [checkGovernor("powersave"), "warn"],
    [checkGovernor("performance"), "ok"],
    [checkNofile(1024), "warn"],
    [checkNofile(65535), "ok"],
    [checkNofile(undefined), "warn"],
    [checkLoad(0.2, 2), "ok"],
    [checkLoad(3, 2), "warn"],
    [checkLoad(1.5, 8), "ok"],
  ])("%j is %s", (check, level) => {
    expect(check.level).toBe(level);
    if (level !== "ok") expect(check.fix ?? check.detail).not.toBe("");
  });

  it("parseNofile", () => {
    expect(
      parseNofile(
        "Limit   Soft Limit Hard Limit Units\nMax open files            20000                20000                files\n",
      ),
    ).toBe(20000);
    expect(parseNofile("")).toBeUndefined();
  });

  it("prints each problem with its fix and exits 1 only on failures", () => {
    const checks = [
      checkNofile(1024),
      { name: "k6", level: "fail" as const, detail: "not found", fix: "npm run setup" },
    ];
    const text = renderChecks(checks);
    expect(text).toContain("FAIL  k6");
    expect(text).toContain("fix: npm run setup");
    expect(text).toContain("fix: ulimit -n 65535");
    expect(doctorExitCode(checks)).toBe(1);
    expect(doctorExitCode([checkNofile(1024)])).toBe(0);
  });

  it.each([
    [[], "Ready for the default benchmark."],
    [[{ name: "taskset", level: "fail", detail: "", neededBy: "every run" }], "1 problem(s) stop every run"],
    [
      [
        { name: "k6", level: "ok", detail: "", neededBy: "the default benchmark" },
        { name: "vegeta", level: "ok", detail: "", neededBy: "study extensibility" },
      ],
      "Ready for the default benchmark, study extensibility.",
    ],
    // what --study finds missing stops the study, not the default benchmark
    [
      [{ name: "extensibility: apollo-router", level: "fail", detail: "", neededBy: "study extensibility" }],
      "1 problem(s) stop study extensibility, 0 warning(s).",
    ],
    [
      [
        { name: "k6", level: "fail", detail: "", neededBy: "the default benchmark" },
        { name: "ab", level: "fail", detail: "", neededBy: "--engine ab" },
      ],
      "2 problem(s) stop the default benchmark, --engine ab, 0 warning(s).",
    ],
  ] as Array<[Check[], string]>)("%j: its last line says what the failures stop", (checks, last) => {
    expect(renderChecks(checks).split("\n").at(-1)).toContain(last);
  });
});

describe("doctor's tuning checks", () => {
  it("warns when irqbalance runs or SMT is on, each with the fix", () => {
    const checks = checkTuning({ smt: "on", irqbalance: true });
    expect(checks.map((c) => [c.name, c.level])).toEqual([
      ["irqbalance", "warn"],
      ["SMT", "warn"],
    ]);
    expect(checks.every((c) => c.fix !== undefined)).toBe(true);
  });

  it("is quiet on a machine without them", () => {
    const checks = checkTuning({ smt: "notsupported", irqbalance: false });
    expect(checks.map((c) => c.level)).toEqual(["ok", "ok"]);
    expect(checks.map((c) => c.detail)).toEqual(["not running", "notsupported"]);
  });
});

import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { findExecutable, PROJECT_ROOT } from "../../../src/util/paths.js";

describe("paths", () => {
  it("PROJECT_ROOT is the package root", () => {
    expect(existsSync(path.join(PROJECT_ROOT, "package.json"))).toBe(true);
    expect(existsSync(path.join(PROJECT_ROOT, "src", "cli.ts"))).toBe(true);
  });

  it("finds executables on PATH and in sbin, and not missing ones", async () => {
    expect(await findExecutable("sh")).toMatch(/\/sh$/);
    expect(await findExecutable("definitely-not-a-command-xyz")).toBeUndefined();
    expect(await findExecutable("/bin/sh")).toBe("/bin/sh");
  });
});

describe("findExecutable order", () => {
  it("prefers the project's pinned tools (scripts/setup.sh installs .tools/bin/k6) over PATH", async () => {
    expect(await findExecutable("k6")).toBe(path.join(PROJECT_ROOT, ".tools", "bin", "k6"));
  });
});

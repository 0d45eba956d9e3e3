import { copyFile, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../../src/util/paths.js";
import { runCommand } from "../../../src/util/processes.js";

// scripts/check-test-projects.js (a step of `npm run lint`) on this checkout, and on small trees
// laid out against this checkout's vitest.config.ts, each breaking the convention one way.

const SCRIPT = path.join(PROJECT_ROOT, "scripts", "check-test-projects.js");
const TEST = 'import { it } from "vitest";\nit("runs", () => {});\n';

let parent: string;
beforeAll(async () => {
  parent = await mkdtemp(path.join(tmpdir(), "pb-test-projects-"));
});
afterAll(async () => {
  await rm(parent, { recursive: true, force: true });
});

/** A project folder with the real vitest.config.ts (or `config`) and the given files. */
async function tree(name: string, files: string[], config?: string): Promise<string> {
  const dir = path.join(parent, name);
  await mkdir(dir);
  await symlink(path.join(PROJECT_ROOT, "node_modules"), path.join(dir, "node_modules"));
  if (config === undefined)
    await copyFile(path.join(PROJECT_ROOT, "vitest.config.ts"), path.join(dir, "vitest.config.ts"));
  else await writeFile(path.join(dir, "vitest.config.ts"), config);
  for (const file of files) {
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await writeFile(
      path.join(dir, file),
      file.endsWith(".ts") && /\.test\./.test(file) ? TEST : "export {};\n",
    );
  }
  return dir;
}

const check = (dir?: string) => runCommand("node", [SCRIPT, ...(dir ? [dir] : [])], { timeoutMs: 60_000 });

const CONVENTION = [
  "test/unit/report/markdown.test.ts",
  "test/processes/report/html.test.ts",
  "test/load/runner/run.test.ts",
  "test/support/runner/helpers.ts",
  "test/fixtures/k6/README.md",
];

describe("check-test-projects: a test's project is its folder under test/", () => {
  it("this checkout: every test file is in exactly its folder's project", async () => {
    const { code, output } = await check();
    expect(output).toMatch(
      /every test file is in its folder's project \(unit \d+, processes \d+, load \d+\)/,
    );
    expect(code).toBe(0);
  });

  it("a tree that follows the convention passes, counting one file per project", async () => {
    const { code, output } = await check(await tree("ok", CONVENTION));
    expect(output).toContain("(unit 1, processes 1, load 1)");
    expect(code).toBe(0);
  });

  it("a test outside the three folders is in no project, vitest would never run it: refused, named", async () => {
    const dir = await tree("stray", [...CONVENTION, "test/report/new.test.ts", "src/report/new.spec.ts"]);
    const { code, output } = await check(dir);
    expect(code).toBe(1);
    expect(output).toContain("test/report/new.test.ts: in no project, so vitest never runs it");
    expect(output).toContain("src/report/new.spec.ts: in no project");
    expect(output).toContain("test/unit/, test/processes/, test/load/");
    expect(output).not.toContain("markdown.test.ts");
  });

  it("a helper in a project's folder is refused: helpers go in test/support/", async () => {
    const { code, output } = await check(await tree("helper", [...CONVENTION, "test/unit/report/build.ts"]));
    expect(code).toBe(1);
    expect(output).toContain("test/unit/report/build.ts: not a test: helpers belong in test/support/");
  });

  it("a file two projects include, and a file in a project other than its folder's: each refused", async () => {
    const config = `import { defineConfig } from "vitest/config";
export default defineConfig({ test: { projects: [
  { test: { name: "unit", include: ["test/unit/**/*.test.ts", "test/load/runner/run.test.ts"], exclude: ["test/unit/report/markdown.test.ts"] } },
  { test: { name: "processes", include: ["test/processes/**/*.test.ts", "test/unit/report/markdown.test.ts"] } },
  { test: { name: "load", include: ["test/load/**/*.test.ts"] } },
] } });
`;
    const { code, output } = await check(await tree("crossed", CONVENTION, config));
    expect(code).toBe(1);
    expect(output).toContain("test/load/runner/run.test.ts: in 2 projects (");
    expect(output).toContain(
      "test/unit/report/markdown.test.ts: in project processes, but not in its folder test/processes/",
    );
    expect(output).not.toContain("html.test.ts");
  });
});

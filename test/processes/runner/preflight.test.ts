import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { EngineAdapter } from "../../../src/engines/types.js";
import { loadManifests, type LoadedScenario } from "../../../src/manifests/load.js";
import { ScenarioManifest } from "../../../src/manifests/schema.js";
import type { Engine, Settings } from "../../../src/results/schema.js";
import { buildPlan } from "../../../src/runner/plan.js";
import { relativeImports } from "../../../src/engines/k6/script.js";
import { checkScriptImports, preflight } from "../../../src/runner/preflight.js";
import { UserError } from "../../../src/util/errors.js";
import { findExecutable } from "../../../src/util/paths.js";

const settings = (s: Partial<Settings> = {}): Settings => ({
  proxies: ["direct"],
  scenarios: ["passthrough"],
  repetitions: 1,
  cpus: { loadgen: [0], proxy: [0], upstream: [0] },
  runtime: "native",
  ...s,
});

/** Engines where `missing` are not installed, with the install hint their adapters give. */
function engines(missing: Engine[]): (name: Engine) => EngineAdapter {
  return (name) => ({
    name,
    locate: () =>
      missing.includes(name)
        ? Promise.reject(new UserError(`${name} not found: install it`, 1))
        : Promise.resolve({ path: `/bin/${name}`, version: "1.0" }),
    run: () => Promise.reject(new Error("not here")),
  });
}

async function refusal(p: Promise<unknown>): Promise<UserError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(UserError);
  return err as UserError;
}

describe("preflight: cannot run here, before anything is created", () => {
  it("a missing engine the run needs: exit 1, the install command", async () => {
    const plan = buildPlan(settings({ engine: "ab" }), await loadManifests({}));
    const err = await refusal(preflight(plan, settings(), engines(["ab"])));
    expect(err.exitCode).toBe(1);
    expect(err.message).toMatch(/^cannot run here/);
    expect(err.message).toContain("npm run setup -- --engine ab");
  });

  it("an engine the run does not need may be missing", async () => {
    const plan = buildPlan(settings(), await loadManifests({}));
    const found = await preflight(plan, settings(), engines(["ab", "wrk"]));
    expect(found.tools).toEqual({ k6: "1.0" });
  });

  it("taskset missing: exit 1 with its package, not a spawn ENOENT later", async () => {
    const plan = buildPlan(settings(), await loadManifests({}));
    const which = (b: string) => (b === "taskset" ? Promise.resolve(undefined) : findExecutable(b));
    const err = await refusal(preflight(plan, settings(), engines([]), which));
    expect(err.exitCode).toBe(1);
    expect(err.message).toContain("taskset not found");
    expect(err.message).toContain("apt-get install util-linux");
  });
});

describe("a k6 script's relative imports are checked before the run", () => {
  it("finds the relative imports of a script", () => {
    const src = `import { a } from "../lib/proxybench.js";\nimport http from "k6/http";\nimport './side.js';`;
    expect(relativeImports(src)).toEqual(["../lib/proxybench.js", "./side.js"]);
  });

  /** The built-in passthrough scenario copied into a folder of the user's, its script changed by `edit`. */
  async function copiedPassthrough(edit: (script: string) => string = (s) => s): Promise<LoadedScenario> {
    const dir = await mkdtemp(path.join(os.tmpdir(), "pb-copied-"));
    const original = (await loadManifests({})).scenarios.get("passthrough")!;
    await mkdir(path.join(dir, "passthrough"));
    const script = await readFile(path.join(original.dir, "script.js"), "utf8");
    await writeFile(path.join(dir, "passthrough", "script.js"), edit(script));
    return {
      ...original,
      dir: path.join(dir, "passthrough"),
      file: path.join(dir, "passthrough", "scenario.yml"),
      builtIn: false,
      manifest: ScenarioManifest.parse(original.manifest),
    };
  }

  it("a built-in scenario copied elsewhere passes: its ../lib import is the scenario library", async () => {
    await expect(checkScriptImports(await copiedPassthrough())).resolves.toBeUndefined();
  });

  it("an import that is truly missing is refused, naming the script and the file", async () => {
    const copied = await copiedPassthrough(
      (s) => `import { helper } from "./helpers.js";\nimport { x } from "../lib/nothere.js";\n${s}`,
    );
    const err = await refusal(checkScriptImports(copied));
    expect(err.exitCode).toBe(2);
    expect(err.message).toBe(
      `${path.join(copied.dir, "script.js")}: imports './helpers.js', which does not exist (${path.join(copied.dir, "helpers.js")}): create it or fix the import`,
    );
    const lib = await copiedPassthrough((s) => `import { x } from "../lib/nothere.js";\n${s}`);
    await expect(checkScriptImports(lib)).rejects.toThrow(
      /imports '\.\.\/lib\/nothere\.js', which does not exist/,
    );
  });
});

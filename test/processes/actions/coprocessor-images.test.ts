import { describe, expect, it } from "vitest";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { existsSync, readFileSync } from "node:fs";
import { execFile, spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { promisify } from "node:util";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { coprocessorImage } from "../../../src/measures/study/extensibility/coprocessors.js";
import { PROJECT_ROOT } from "../../../src/util/paths.js";

// The extensibility study's coprocessor images: which ones a study needs (`proxybench images
// --study`), the bake file's target for each, the run action's steps that connect them, and the
// dry run that names them. No Docker engine here: nothing is built.

const CLI = path.join(PROJECT_ROOT, "bin", "proxybench.js");
const COPROCESSORS = ["go", "node", "python", "java", "csharp"];
const HCL = path.join(PROJECT_ROOT, "action", "docker-bake.hcl");

const cli = (args: string[], env: NodeJS.ProcessEnv = process.env) =>
  promisify(execFile)(process.execPath, [CLI, ...args], { env });

/** The words the action's run step gives proxybench (a `node` on PATH that prints its arguments). */
function actionRunArgs(script: string, study: string): string[] {
  const bin = path.join(PROJECT_ROOT, "node_modules", ".cache", "pb-action-run-stub");
  const stub = `mkdir -p "${bin}" && printf '#!/bin/sh\\nshift\\nfor a; do echo "$a"; done\\n' > "${bin}/node" && chmod +x "${bin}/node" && PATH="${bin}:$PATH"`;
  const env = {
    PATH: process.env.PATH,
    PROXYBENCH: "pb.js",
    STUDY: study,
    PROXIES: "nginx",
    REPETITIONS: "3",
  };
  const result = spawnSync("bash", ["-c", `${stub} && ${script}`], { env, encoding: "utf8" });
  expect(result.status, result.stderr).toBe(0);
  return result.stdout.trim().split("\n");
}

describe("proxybench images --study", () => {
  it("writes the proxies' folders and the study's coprocessors' as two step outputs", async () => {
    const root = await mkdtemp(path.join(tmpdir(), "pb-coprocessor-images-"));
    try {
      const output = path.join(root, "github-output");
      await writeFile(output, "");
      const env = { ...process.env, GITHUB_OUTPUT: output };
      await cli(
        ["images", "--proxies", "nginx,envoy", "--study", "extensibility", "--github-output", "contexts"],
        env,
      );
      await cli(["images", "--proxies", "nginx", "--github-output", "plain"], env);
      const outputs = Object.fromEntries(
        (await readFile(output, "utf8"))
          .trim()
          .split("\n")
          .map((line) => [
            line.slice(0, line.indexOf("=")),
            JSON.parse(line.slice(line.indexOf("=") + 1)) as unknown,
          ]),
      );
      expect(outputs.contexts).toEqual({
        nginx: path.join(PROJECT_ROOT, "proxies", "nginx"),
        envoy: path.join(PROJECT_ROOT, "proxies", "envoy"),
      });
      const coprocessors = outputs["contexts-coprocessors"] as Record<string, string>;
      expect(Object.keys(coprocessors)).toEqual(COPROCESSORS);
      for (const [name, dir] of Object.entries(coprocessors)) {
        expect(dir).toBe(path.join(PROJECT_ROOT, "coprocessors", name));
        expect(existsSync(path.join(dir, "Dockerfile")), name).toBe(true);
      }
      // A run without a study builds no coprocessor.
      expect(outputs["plain-coprocessors"]).toEqual({});
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it("refuses an unknown study by name", async () => {
    const failed = await cli(["images", "--proxies", "nginx", "--study", "extensibilty"]).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect(failed).toMatchObject({ code: 2 });
    expect((failed as { stderr: string }).stderr).toContain("--study extensibilty: unknown study");
  });
});

describe("the bake file's coprocessor targets", () => {
  const hcl = readFileSync(HCL, "utf8");

  it("one target per coprocessor, from its folder, tagged as the runner looks it up, with a cache scope of its own", () => {
    const target = /target "coprocessor" \{[\s\S]*?\n\}/.exec(hcl)?.[0] ?? "";
    expect(target).toContain('name = "coprocessor-${c}"');
    expect(target).toMatch(/matrix = \{\s*c = coprocessors\(COPROCESSORS, COPROCESSOR_CONTEXTS\)\s*\}/);
    expect(target).toContain(
      'context    = lookup(jsondecode(COPROCESSOR_CONTEXTS), c, "${COPROCESSORS_DIR}/${c}")',
    );
    expect(target).toContain('tags       = ["proxybench/coprocessor-${c}:${IMAGE_TAG}"]');
    expect(target).toContain('cache-from = ["type=gha,scope=${CACHE_SCOPE_PREFIX}-coprocessor-${c}"]');
    expect(target).toContain(
      'cache-to   = ["type=gha,mode=max,scope=${CACHE_SCOPE_PREFIX}-coprocessor-${c}"]',
    );
    // The default group has them only when there are some: a group naming an empty matrix fails.
    expect(hcl).toContain(
      'targets = concat(["proxy"], length(coprocessors(COPROCESSORS, COPROCESSOR_CONTEXTS)) > 0 ? ["coprocessor"] : [])',
    );
    expect(hcl).toMatch(
      /result = sort\(distinct\(concat\(with_images\(list\), keys\(jsondecode\(contexts\)\)\)\)\)/,
    );
    // The reference the runner starts: the tag in the bake file with c = csharp, IMAGE_TAG = ci.
    expect(
      "proxybench/coprocessor-${c}:${IMAGE_TAG}".replace("${c}", "csharp").replace("${IMAGE_TAG}", "ci"),
    ).toBe(coprocessorImage("csharp", "ci"));
  });

  /** `docker buildx bake --print` of the default group with these variables: its targets. */
  function bakePrint(env: Record<string, string>): Record<string, Record<string, unknown>> {
    const printed = spawnSync("docker", ["buildx", "bake", "-f", HCL, "--print"], {
      cwd: PROJECT_ROOT,
      encoding: "utf8",
      env: { ...process.env, IMAGE_TAG: "ci", ...env },
    });
    expect(printed.status, printed.stderr).toBe(0);
    return (JSON.parse(printed.stdout) as { target: Record<string, Record<string, unknown>> }).target;
  }

  const buildx = spawnSync("docker", ["buildx", "version"], { encoding: "utf8" }).status === 0;
  it.skipIf(!buildx)(
    "docker buildx bake --print resolves them, and none without a study (where buildx is installed)",
    () => {
      const contexts = Object.fromEntries(
        COPROCESSORS.map((n) => [n, path.join(PROJECT_ROOT, "coprocessors", n)]),
      );
      const targets = bakePrint({
        PROXIES: "nginx",
        COPROCESSORS: "csharp",
        COPROCESSOR_CONTEXTS: JSON.stringify(contexts),
      });
      expect(Object.keys(targets).sort()).toEqual(
        ["proxy-nginx", ...COPROCESSORS.map((n) => `coprocessor-${n}`)].sort(),
      );
      expect(targets["coprocessor-csharp"]).toMatchObject({
        context: contexts.csharp,
        tags: ["proxybench/coprocessor-csharp:ci"],
        "cache-from": [{ type: "gha", scope: "proxybench-coprocessor-csharp" }],
      });
      // A run without a study: the proxies only (the action's bake step then gets `{}`).
      expect(Object.keys(bakePrint({ PROXIES: "nginx", COPROCESSOR_CONTEXTS: "{}" }))).toEqual([
        "proxy-nginx",
      ]);
    },
  );
});

describe("the run action builds a study's coprocessors", () => {
  type Step = { id?: string; name?: string; uses?: string; run?: string; env?: Record<string, string> };
  const action = parseYaml(readFileSync(path.join(PROJECT_ROOT, "action", "action.yml"), "utf8")) as {
    runs: { steps: Step[] };
  };
  const bench = parseYaml(
    readFileSync(path.join(PROJECT_ROOT, ".github", "workflows", "bench.yml"), "utf8"),
  ) as {
    jobs: { bench: { steps: Array<{ id?: string; with?: Record<string, string> }> } };
  };

  it("the study input reaches `images --study`, whose coprocessors' folders reach the bake step", () => {
    const steps = action.runs.steps;
    const head = steps.find((s) => s.id === "head-contexts");
    expect(head?.env?.STUDY).toBe("${{ inputs.study }}");
    expect(head?.run).toContain('${STUDY:+--study "$STUDY"} --github-output contexts');
    const bake = steps.find((s) => s.uses?.startsWith("docker/bake-action@"));
    expect(bake?.env?.COPROCESSOR_CONTEXTS).toBe("${{ steps.head-contexts.outputs.contexts-coprocessors }}");
    const run = steps.find((s) => s.id === "run");
    const argsOf = (study: string) => actionRunArgs(run?.run ?? "exit 99", study);
    expect(argsOf("extensibility").slice(0, 3)).toEqual(["study", "extensibility", "--runtime"]);
    expect(argsOf("")[0]).toBe("run");
    expect(argsOf("")).not.toContain("extensibility");
    // an input a study does not read is refused, not ignored
    const refused = spawnSync("bash", ["-c", run?.run ?? "exit 99"], {
      env: { PATH: process.env.PATH, STUDY: "llrp", ENGINE: "wrk" },
      encoding: "utf8",
    });
    expect(refused.status).toBe(1);
    expect(refused.stdout).toContain("::error::study: the input engine does not apply to a study");
    // bench.yml's study input goes to the action.
    const benchStep = bench.jobs.bench.steps.find((s) => s.id === "bench");
    expect(benchStep?.with?.study).toBe("${{ inputs.study }}");
  });
});

describe("proxybench study extensibility --runtime docker --dry-run", () => {
  it("shows the C# rows as planned and names the images it needs; natively C# is skipped", async () => {
    const docker = await cli([
      "study",
      "extensibility",
      "--runtime",
      "docker",
      "--dry-run",
      "--image-tag",
      "ci",
    ]);
    expect(docker.stdout).toMatch(
      /^ {2}static-header · envoy: baseline, config, script, go, node, python, java, csharp$/m,
    );
    expect(docker.stdout).not.toMatch(/skipped [^:]*csharp: image only/);
    expect(docker.stdout).toMatch(/^images: .*proxybench\/envoy:ci.*proxybench\/coprocessor-csharp:ci/m);
    const native = await cli(["study", "extensibility", "--dry-run"]);
    expect(native.stdout).toMatch(/^ {4}skipped csharp: image only: no native start here$/m);
    expect(native.stdout).not.toContain("images:");
    // two CLI runs that each load every manifest and coprocessor: 10 s here, far more on a busy machine
  }, 180_000);
});

import { describe, expect, it } from "vitest";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import type { Command } from "commander";
import { buildProgram } from "../../../src/cli.js";
import { MOVED } from "../../../src/commands/run.js";
import { PROJECT_ROOT } from "../../../src/util/paths.js";
import { countedImageRef } from "../../../src/measures/counted/valgrind.js";
import { imageRef } from "../../../src/runner/specs.js";
import { PRIMARY_METRICS } from "../../../src/stats/tested-metrics.js";
import { runGithubScript } from "../../support/actions/workflow-run.js";

/**
 * Every workflow and action of the project, read as GitHub reads them: each `run:` step calls
 * a proxybench subcommand with flags that exist (asked of the real commander program), and the
 * safety rules hold (no permissions by default, pinned actions, no expressions in shell code,
 * concurrency set, self-hosted runners gated for forks).
 */

interface Step {
  name?: string;
  id?: string;
  uses?: string;
  run?: string;
  if?: string;
  env?: Record<string, string>;
  with?: Record<string, unknown>;
  "continue-on-error"?: boolean;
}
interface Job {
  "runs-on"?: unknown;
  needs?: unknown;
  if?: string;
  uses?: string;
  permissions?: Record<string, string> | string;
  steps?: Step[];
}
interface Workflow {
  on: unknown;
  permissions?: unknown;
  concurrency?: unknown;
  jobs: Record<string, Job>;
}
interface Action {
  runs: { using: string; steps?: Step[] };
}

// src/version.ts reads package.json relative to dist/src/; under vitest the sources run from src/.
const rel = (file: string) => path.relative(PROJECT_ROOT, file);

function ymlFiles(dir: string): string[] {
  const full = path.join(PROJECT_ROOT, dir);
  if (!existsSync(full)) return [];
  return readdirSync(full)
    .filter((f) => f.endsWith(".yml") || f.endsWith(".yaml"))
    .map((f) => path.join(full, f));
}

const WORKFLOWS = [...ymlFiles(".github/workflows"), ...ymlFiles("workflows")];
const ACTIONS = ["action/action.yml", "report/action.yml"]
  .map((f) => path.join(PROJECT_ROOT, f))
  .filter((f) => existsSync(f));

const read = <T>(file: string): T => parseYaml(readFileSync(file, "utf8")) as T;

/** [file, where, step] for every step of every workflow job and composite action. */
function allSteps(): Array<[string, string, Step]> {
  const out: Array<[string, string, Step]> = [];
  for (const file of WORKFLOWS) {
    for (const [jobId, job] of Object.entries(read<Workflow>(file).jobs)) {
      for (const [i, step] of (job.steps ?? []).entries()) out.push([file, `${jobId}.steps[${i}]`, step]);
    }
  }
  for (const file of ACTIONS) {
    for (const [i, step] of (read<Action>(file).runs.steps ?? []).entries())
      out.push([file, `steps[${i}]`, step]);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Command lines

export interface CliCall {
  subcommand: string;
  flags: string[];
}

/**
 * The proxybench invocations of a shell snippet: `proxybench X`, `npx proxybench X`,
 * `node path/bin/proxybench.js X`, or `node "$VAR" X` where the step's env sets VAR to a
 * path ending in bin/proxybench.js. Flags are the `--long` words of each call.
 */
export function cliCalls(run: string, env: Record<string, string> = {}): CliCall[] {
  const calls: CliCall[] = [];
  const script = run.replace(/\\\n/g, " ");
  // Commands split on newlines, `&&`, `||`, `;` and pipes.
  for (const command of script.split(/\n|&&|\|\||;|\|/)) {
    const words = command.trim().split(/\s+/).filter(Boolean);
    let start = -1;
    for (let i = 0; i < words.length; i++) {
      const w = words[i]!.replace(/^["']|["']$/g, "");
      const variable = /^\$\{?([A-Z_][A-Z0-9_]*)\}?$/.exec(w)?.[1];
      const isBin =
        w === "proxybench" ||
        w.endsWith("/bin/proxybench.js") ||
        (variable !== undefined && (env[variable] ?? "").endsWith("bin/proxybench.js"));
      if (isBin && (i === 0 || ["node", "npx", "exec"].includes(words[i - 1]!))) {
        start = i;
        break;
      }
    }
    if (start < 0) continue;
    const subcommand = words[start + 1] ?? "";
    const rest = words.slice(start + 2).join(" ");
    const flags = [...rest.matchAll(/(?:^|[\s{+"'(])(--[a-z][a-z0-9-]*)/g)].map((m) => m[1]!);
    calls.push({ subcommand, flags });
  }
  return calls;
}

/** Shell steps allowed without a proxybench call: installing, building and testing proxybench. */
const INSTALL_STEP =
  /^npm (ci|test|run [a-z:-]+)( --[a-z-]*)*( && npm (ci|test|run [a-z:-]+)( --[a-z-]*)*)*$/;

function subcommandsOf(program: Command): Map<string, Set<string>> {
  return new Map(
    program.commands.map((c) => [
      c.name(),
      // A hidden option is an old spelling that works, or a mode of run that moved to its own
      // command: given, that one is an error.
      new Set([
        ...c.options
          .filter((o) => !MOVED.some((m) => m.option === o))
          .map((o) => o.long)
          .filter((l): l is string => !!l),
        "--help",
      ]),
    ]),
  );
}

describe("cliCalls", () => {
  it.each<[string, Record<string, string>, CliCall[]]>([
    ["proxybench run --proxies a --out x", {}, [{ subcommand: "run", flags: ["--proxies", "--out"] }]],
    ["npx proxybench report dir", {}, [{ subcommand: "report", flags: [] }]],
    [
      "node .proxybench/bin/proxybench.js compare base head --threshold 5 && echo done",
      {},
      [{ subcommand: "compare", flags: ["--threshold"] }],
    ],
    [
      'node "$PB" run ${DURATION:+--duration "$DURATION"}',
      { PB: "x/../bin/proxybench.js" },
      [{ subcommand: "run", flags: ["--duration"] }],
    ],
    ['node "$PB" run', { PB: "x/other.js" }, []],
    ["npm ci && npm run build", {}, []],
    ["echo proxybench run", {}, []],
  ])("%j", (run, env, expected) => {
    expect(cliCalls(run, env)).toEqual(expected);
  });
});

describe("run: steps call proxybench", () => {
  const known = subcommandsOf(buildProgram());

  it("finds the workflows and actions", () => {
    expect(WORKFLOWS.map(rel)).toEqual(
      expect.arrayContaining([
        ".github/workflows/bench.yml",
        ".github/workflows/ci.yml",
        "workflows/nightly.yml",
      ]),
    );
    expect(ACTIONS.map(rel)).toContain("action/action.yml");
  });

  it("every run: step calls a subcommand and flags that exist, or installs proxybench", () => {
    const problems: string[] = [];
    let calls = 0;
    for (const [file, where, step] of allSteps()) {
      if (step.run === undefined) continue;
      const found = cliCalls(step.run, step.env ?? {});
      if (found.length === 0) {
        if (!INSTALL_STEP.test(step.run.trim()))
          problems.push(`${rel(file)} ${where}: not a proxybench call: ${step.run}`);
        continue;
      }
      for (const call of found) {
        calls++;
        const flags = known.get(call.subcommand);
        if (!flags) {
          problems.push(
            `${rel(file)} ${where}: unknown subcommand '${call.subcommand}' (known: ${[...known.keys()].join(", ")})`,
          );
          continue;
        }
        for (const flag of call.flags) {
          if (!flags.has(flag))
            problems.push(`${rel(file)} ${where}: 'proxybench ${call.subcommand}' has no ${flag}`);
        }
      }
    }
    expect(problems).toEqual([]);
    expect(calls).toBeGreaterThanOrEqual(3);
  });

  it("the composite action keeps its logic in the CLI: only proxybench calls and its install", () => {
    const action = read<Action>(path.join(PROJECT_ROOT, "action/action.yml"));
    expect(action.runs.using).toBe("composite");
    const runs = (action.runs.steps ?? []).filter((s) => s.run !== undefined);
    expect(runs.length).toBeGreaterThanOrEqual(2);
    for (const step of runs) {
      const isCall = cliCalls(step.run!, step.env ?? {}).length > 0;
      expect(isCall || INSTALL_STEP.test(step.run!.trim()), step.run).toBe(true);
    }
    const run = runs.find((s) => cliCalls(s.run!, s.env ?? {}).some((c) => c.subcommand === "run"));
    expect(run?.run).toMatch(/--runtime docker/);
    // with a study input, the study command, its images under docker too
    const calls = cliCalls(run?.run ?? "", run?.env ?? {});
    expect(calls.map((c) => c.subcommand)).toEqual(["study", "run"]);
    expect(calls[0]?.flags).toContain("--runtime");
  });
});

// ---------------------------------------------------------------------------------------------
// Safety rules

/** `owner/repo[/path]@ref`: remote actions and reusable workflows (not ./local, not docker://). */
const isRemote = (uses: string) => !uses.startsWith("./") && !uses.startsWith("docker://");

describe("safety", () => {
  it.each(WORKFLOWS.map(rel))("%s: no permissions by default, concurrency set for pull requests", (file) => {
    const wf = read<Workflow>(path.join(PROJECT_ROOT, file));
    expect(wf.permissions).toEqual({});
    if (JSON.stringify(wf.on).includes("pull_request")) expect(wf.concurrency).toBeDefined();
  });

  it("every remote uses: is pinned to a full commit SHA with its version in a comment, proxybench's own in the examples too", () => {
    const problems: string[] = [];
    let pinned = 0;
    for (const file of [...WORKFLOWS, ...ACTIONS]) {
      for (const line of readFileSync(file, "utf8").split("\n")) {
        const m = /^\s*(?:-\s+)?uses:\s*(\S+)(.*)$/.exec(line);
        if (!m) continue;
        const [, uses, rest] = m as unknown as [string, string, string];
        // The examples' own references too: a tag that moves would run with their write tokens.
        if (!isRemote(uses)) continue;
        if (!/@[0-9a-f]{40}$/.test(uses)) problems.push(`${rel(file)}: ${uses} is not pinned to a commit`);
        else if (!/#\s*v\d+(\.\d+)*/.test(rest))
          problems.push(`${rel(file)}: ${uses} has no '# vX.Y.Z' comment`);
        else pinned++;
      }
    }
    expect(problems).toEqual([]);
    expect(pinned).toBeGreaterThan(10);
  });

  it("the same action is pinned to the same commit everywhere", () => {
    const seen = new Map<string, Set<string>>();
    for (const file of [...WORKFLOWS, ...ACTIONS]) {
      for (const m of readFileSync(file, "utf8").matchAll(/uses:\s*([^@\s]+)@([0-9a-f]{40})/g)) {
        const shas = seen.get(m[1]!) ?? new Set();
        shas.add(m[2]!);
        seen.set(m[1]!, shas);
      }
    }
    for (const [action, shas] of seen) expect([action, [...shas]]).toEqual([action, [...shas].slice(0, 1)]);
  });

  it("no expression inside shell code: untrusted values reach run: through env: only", () => {
    const problems = allSteps()
      .filter(([, , step]) => step.run !== undefined && step.run.includes("${{"))
      .map(([file, where]) => `${rel(file)} ${where}`);
    expect(problems).toEqual([]);
  });

  it("write scopes only on the jobs that comment, publish or remove a label", () => {
    const writes: string[] = [];
    for (const file of WORKFLOWS) {
      for (const [jobId, job] of Object.entries(read<Workflow>(file).jobs)) {
        const perms = job.permissions;
        expect(perms, `${rel(file)} ${jobId}: permissions must be explicit`).toBeDefined();
        expect(typeof perms, `${rel(file)} ${jobId}: no write-all/read-all`).toBe("object");
        for (const [scope, level] of Object.entries(perms as Record<string, string>)) {
          if (level === "write") writes.push(`${rel(file)} ${jobId} ${scope}`);
        }
      }
    }
    expect(writes.sort()).toEqual(
      [
        ".github/workflows/bench-label-reset.yml unlabel pull-requests",
        ".github/workflows/bench.yml publish contents",
        ".github/workflows/bench.yml publish issues",
        ".github/workflows/dogfood.yml bench issues",
        "workflows/manual-compare.yml bench issues",
        "workflows/nightly.yml bench issues",
        "workflows/pr-benchmark.yml bench issues",
        ".github/workflows/bench.yml report pull-requests",
        ".github/workflows/dogfood.yml bench contents",
        ".github/workflows/dogfood.yml bench pull-requests",
        "workflows/fork-comment.yml comment pull-requests",
        "workflows/label-reset.yml unlabel pull-requests",
        "workflows/manual-compare.yml bench contents",
        "workflows/manual-compare.yml bench pull-requests",
        "workflows/nightly.yml bench contents",
        "workflows/nightly.yml bench pull-requests",
        "workflows/pr-benchmark.yml bench contents",
        "workflows/pr-benchmark.yml bench pull-requests",
      ].sort(),
    );
  });

  it("jobs on self-hosted runners from pull requests are gated on the approval label", () => {
    const gated: string[] = [];
    for (const file of WORKFLOWS) {
      const wf = read<Workflow>(file);
      const on = JSON.stringify(wf.on);
      if (!on.includes("pull_request") && !on.includes("workflow_call")) continue;
      for (const [jobId, job] of Object.entries(wf.jobs)) {
        const runsOn = JSON.stringify(job["runs-on"] ?? "");
        if (!runsOn.includes("self-hosted") && !runsOn.includes("inputs.runs-on")) continue;
        // Either the label check itself, or the plan job's verdict that holds it.
        expect(job.if, `${rel(file)} ${jobId}`).toMatch(/labeled|approved/);
        gated.push(`${rel(file)} ${jobId}`);
      }
    }
    expect(gated).toEqual(
      expect.arrayContaining([".github/workflows/bench.yml bench", "workflows/fork-benchmark.yml bench"]),
    );
    // Which events it approves is evaluated in workflow-events.test.ts; written once: the output
    // and the plan step both read the job's env.
    const plan = read<Workflow>(path.join(PROJECT_ROOT, ".github/workflows/bench.yml")).jobs[
      "detect-env"
    ] as Job & { outputs: Record<string, string>; env: Record<string, string> };
    expect(plan.outputs.approved).toBe("${{ env.APPROVED }}");
    const text = readFileSync(path.join(PROJECT_ROOT, ".github/workflows/bench.yml"), "utf8");
    expect(text.split("github.event.action == 'labeled' && github.event.label.name ==").length - 1).toBe(1);
  });

  it("the approval-label input is ignored, with a warning (what a fork's caller passes decides nothing)", () => {
    const wf = read<Workflow & { concurrency: Concurrency }>(BENCH);
    const inputs = (
      wf.on as { workflow_call: { inputs: Record<string, { default?: unknown; description: string }> } }
    ).workflow_call.inputs;
    // Kept so that callers passing it still load; its value is ignored and warned about.
    expect(inputs["approval-label"]?.default).toBe("");
    expect(inputs["approval-label"]?.description).toMatch(/^Deprecated, ignored/);
    const detect = (wf.jobs["detect-env"]?.steps ?? []).find((s) => s.id === "detect");
    expect(detect?.env?.IGNORED_APPROVAL_LABEL).toBe("${{ inputs.approval-label }}");
    expect(String(detect?.with?.script)).toMatch(/core\.warning\(`input 'approval-label' is ignored/);
    for (const [file, jobId, job] of benchCallers()) {
      expect(job.with?.["approval-label"], `${file} ${jobId}`).toBeUndefined();
    }
  });

  it("checkouts never keep credentials on disk", () => {
    const problems = allSteps()
      .filter(
        ([, , s]) => s.uses?.startsWith("actions/checkout@") && s.with?.["persist-credentials"] !== false,
      )
      .map(([file, where]) => `${rel(file)} ${where}`);
    expect(problems).toEqual([]);
  });

  it("the label is removed on every new push to a pull request", () => {
    for (const file of [".github/workflows/bench-label-reset.yml", "workflows/label-reset.yml"]) {
      const wf = read<Workflow & { on: { pull_request_target: { types: string[] } } }>(
        path.join(PROJECT_ROOT, file),
      );
      expect(wf.on.pull_request_target.types).toEqual(["synchronize"]);
      const steps = wf.jobs.unlabel?.steps ?? [];
      // Nothing from the pull request is checked out on this trigger.
      expect(steps.some((s) => s.uses?.startsWith("actions/checkout@"))).toBe(false);
      expect(JSON.stringify(steps)).toContain("removeLabel");
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Callers that load and run as copied

type Permissions = Record<string, string>;
interface Concurrency {
  group: string;
  "cancel-in-progress"?: boolean | string;
}
type FullJob = Job & { concurrency?: Concurrency | string; with?: Record<string, unknown> };

const BENCH = path.join(PROJECT_ROOT, ".github/workflows/bench.yml");
const LEVEL: Record<string, number> = { none: 0, read: 1, write: 2 };

/** Every job of every workflow that calls bench.yml (locally or as org/proxybench/...). */
function benchCallers(): Array<[string, string, FullJob]> {
  const out: Array<[string, string, FullJob]> = [];
  for (const file of WORKFLOWS) {
    for (const [jobId, job] of Object.entries(read<Workflow>(file).jobs)) {
      if (/\.github\/workflows\/bench\.yml(@|$)/.test(job.uses ?? "")) out.push([rel(file), jobId, job]);
    }
  }
  return out;
}

/** The scopes a caller grants that are below what a called job asks for (GitHub refuses the run). */
export function missingPermissions(granted: Permissions, asked: Permissions): string[] {
  return Object.entries(asked)
    .filter(([scope, level]) => (LEVEL[granted[scope] ?? "none"] ?? 0) < (LEVEL[level] ?? 0))
    .map(([scope, level]) => `${scope}: ${level} (granted: ${granted[scope] ?? "none"})`);
}

describe("callers load as GitHub loads them", () => {
  const bench = read<Workflow>(BENCH);

  it("missingPermissions compares levels, scope by scope", () => {
    expect(missingPermissions({ contents: "read" }, { contents: "write" })).toEqual([
      "contents: write (granted: read)",
    ]);
    expect(missingPermissions({ contents: "write" }, { contents: "read", "id-token": "write" })).toEqual([
      "id-token: write (granted: none)",
    ]);
    expect(missingPermissions({ contents: "write", "pull-requests": "write" }, { contents: "read" })).toEqual(
      [],
    );
  });

  it("every caller grants at least what each job of bench.yml asks for, even jobs that will not run", () => {
    const callers = benchCallers();
    expect(callers.map(([file]) => file)).toEqual(
      expect.arrayContaining([
        "workflows/pr-benchmark.yml",
        "workflows/manual-compare.yml",
        "workflows/nightly.yml",
        ".github/workflows/dogfood.yml",
      ]),
    );
    const problems: string[] = [];
    for (const [file, jobId, job] of callers) {
      for (const [calledId, called] of Object.entries(bench.jobs)) {
        const missing = missingPermissions(
          (job.permissions ?? {}) as Permissions,
          (called.permissions ?? {}) as Permissions,
        );
        for (const m of missing) problems.push(`${file} ${jobId} -> bench.yml ${calledId}: ${m}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("no OIDC token anywhere: bench.yml finds itself through the job context", () => {
    for (const file of WORKFLOWS) {
      for (const [jobId, job] of Object.entries(read<Workflow>(file).jobs)) {
        const perms = (job.permissions ?? {}) as Permissions;
        expect(perms["id-token"], `${rel(file)} ${jobId}`).toBeUndefined();
      }
    }
    const detect = (bench.jobs["detect-env"]?.steps ?? []).find((s) => s.id === "detect");
    expect(detect?.env?.JOB_CONTEXT).toBe("${{ toJSON(job) }}");
    expect(String(detect?.with?.script)).toMatch(/job\.workflow_repository/);
    expect(String(detect?.with?.script)).toMatch(/job\.workflow_sha/);
    expect(String(detect?.with?.script)).not.toMatch(/getIDToken/);
  });

  it("callers do not name a proxybench ref that can drift from their uses: ref", () => {
    for (const [file, jobId, job] of benchCallers()) {
      const ref = job.with?.["proxybench-ref"];
      if (ref === undefined) continue;
      // Only the repository's own commit (dogfood), never a literal tag or branch.
      expect(typeof ref === "string" ? ref : JSON.stringify(ref), `${file} ${jobId}`).toMatch(
        /^\$\{\{.*github\.(sha|event\.pull_request\.head\.sha)/,
      );
    }
  });

  it("Dependabot's and forks' read-only tokens never try to comment from bench.yml", () => {
    const report = (bench.jobs.report?.steps ?? []).find((s) => s.id === "report");
    expect(String(report?.with?.comment)).toMatch(/same-repo == 'true'/);
    expect(String(report?.with?.comment)).toMatch(/github\.actor != 'dependabot\[bot\]'/);
  });
});

describe("results of one run never mix with an earlier run's on a reused runner", () => {
  /** Every `with:` of a step that uses the run action (bench.yml, the examples). */
  function actionCalls(): Array<[string, Step]> {
    return allSteps()
      .filter(([, , step]) => /(^\.\/\.proxybench\/action$|^org\/proxybench\/action@)/.test(step.uses ?? ""))
      .map(([file, where, step]) => [`${rel(file)} ${where}`, step]);
  }

  it("every results-dir is under runner.temp, which the runner empties at the start of each job", () => {
    const calls = actionCalls();
    expect(calls.length).toBeGreaterThanOrEqual(2);
    for (const [where, step] of calls) {
      expect(String(step.with?.["results-dir"]), where).toMatch(/^\$\{\{ runner\.temp \}\}\//);
    }
  });

  it("the report job reads only what this run uploaded (downloaded into a fresh hosted job)", () => {
    const bench = read<Workflow>(BENCH);
    expect(JSON.stringify(bench.jobs.report?.["runs-on"])).not.toMatch(/self-hosted|inputs\.runs-on/);
    expect(JSON.stringify(bench.jobs.publish?.["runs-on"])).not.toMatch(/self-hosted|inputs\.runs-on/);
  });

  it("the action's own default is under runner.temp too, in every place it is used", () => {
    const text = readFileSync(path.join(PROJECT_ROOT, "action/action.yml"), "utf8");
    const action = parseYaml(text) as Action & { inputs: Record<string, { default?: string }> };
    expect(action.inputs["results-dir"]?.default).toBe("");
    const fallback =
      "inputs.results-dir != '' && inputs.results-dir || format('{0}/proxybench-results-{1}', runner.temp, inputs.image-tag)";
    const steps = action.runs.steps ?? [];
    const run = steps.find((s) => s.id === "run");
    const upload = steps.find((s) => s.id === "upload");
    expect(run?.env?.RESULTS_DIR).toBe(`\${{ ${fallback} }}`);
    expect(upload?.with?.path).toBe(`\${{ ${fallback} }}`);
    // No other spelling of the folder is left behind.
    expect(text.match(/\$\{\{ inputs\.results-dir \}\}/g)).toBeNull();
  });
});

/** The plan job's script (actions/github-script) run as the action runs it, with the given environment. */
async function runPlanScript(env: Record<string, string>): Promise<Record<string, string>> {
  const plan = read<Workflow>(BENCH).jobs["detect-env"];
  const script = String((plan?.steps ?? []).find((s) => s.id === "detect")?.with?.script);
  const run = await runGithubScript(script, {
    RUNNERS: "1",
    ARTIFACT_PREFIX: "proxybench",
    JOB_CONTEXT: "{}",
    ...env,
  });
  if (run.error !== undefined) throw new Error(run.error);
  return run.outputs;
}

describe("the plan job refuses what every benchmark job would, before any runner is taken", () => {
  const plan = read<Workflow>(BENCH).jobs["detect-env"]!;
  const steps = plan.steps ?? [];
  const check = steps.find((s) => s.name === "Check the split");

  /** The step's shell code as the runner runs it, with the env its expressions give for `inputs`. */
  function runCheck(env: Record<string, string>): { code: number | null; stdout: string; stderr: string } {
    const result = spawnSync("bash", ["-c", check?.run ?? "exit 99"], {
      env: {
        PATH: process.env.PATH,
        PROXYBENCH: path.join(PROJECT_ROOT, "bin", "proxybench.js"),
        RUNNERS: "1",
        PROXIES: "nginx",
        SCENARIOS: "",
        STUDY: "",
        ENGINE: "",
        PROXIES_DIR: "",
        SCENARIOS_DIR: "",
        ...env,
      },
      encoding: "utf8",
    });
    return { code: result.status, stdout: result.stdout, stderr: result.stderr };
  }

  it("is a step of the plan job (a hosted runner) that calls proxybench shards with the benchmark jobs' inputs", () => {
    expect(plan["runs-on"]).toBe("ubuntu-latest");
    expect(read<Workflow>(BENCH).jobs.bench?.["needs" as keyof Job]).toBe("detect-env");
    expect(check?.if).toBe("${{ env.APPROVED == 'true' && (inputs.runners > 1 || inputs.study != '') }}");
    expect(check?.env).toMatchObject({
      RUNNERS: "${{ inputs.runners }}",
      STUDY: "${{ inputs.study }}",
      ENGINE: "${{ inputs.engine }}",
      SCENARIOS: "${{ inputs.study == '' && inputs.scenarios || '' }}",
    });
    expect(cliCalls(check?.run ?? "", check?.env ?? {})[0]?.subcommand).toBe("shards");
  });

  it.each<[string, Record<string, string>, RegExp]>([
    [
      "a study over 2 runners",
      { STUDY: "llrp", RUNNERS: "2" },
      /runners 2 with study llrp: a study runs on one runner/,
    ],
    [
      "a study with an engine",
      { STUDY: "llrp", ENGINE: "wrk" },
      /engine wrk with study llrp: the study names its engine/,
    ],
    [
      "a study with a scenarios folder",
      { STUDY: "llrp", SCENARIOS_DIR: "head/bench/scenarios" },
      /scenarios-dir head\/bench\/scenarios with study llrp: the study names its scenarios/,
    ],
    [
      "more runners than cells",
      { RUNNERS: "3", PROXIES: "nginx,haproxy", SCENARIOS: "passthrough" },
      /runners 3 but the matrix has 2 cells .*: use at most 2 runners/,
    ],
  ])("refuses %s, with the reason", (_, env, reason) => {
    const { code, stderr } = runCheck(env);
    expect(code).toBe(2);
    expect(stderr).toMatch(reason);
  });

  it("lets a matrix through that splits", () => {
    const { code, stdout, stderr } = runCheck({
      RUNNERS: "2",
      PROXIES: "nginx,haproxy",
      SCENARIOS: "passthrough",
    });
    expect(code, stderr).toBe(0);
    expect(stdout).toBe("the matrix splits over 2 runners\n");
  });
});

describe("two calls of bench.yml in one workflow keep apart", () => {
  const bench = read<Workflow>(BENCH);
  const plan = bench.jobs["detect-env"] as Job & { outputs: Record<string, string> };
  const detect = (plan.steps ?? []).find((s) => s.id === "detect");

  it("the plan derives the comment's marker and the gh-pages folder from artifact-prefix", async () => {
    expect(detect?.env?.ARTIFACT_PREFIX).toBe("${{ inputs.artifact-prefix }}");
    expect(detect?.env?.GH_PAGES_DIR).toBe("${{ inputs.gh-pages-dir }}");
    const first = await runPlanScript({ ARTIFACT_PREFIX: "proxybench" });
    const second = await runPlanScript({ ARTIFACT_PREFIX: "proxybench-grpc" });
    // The default prefix keeps the marker and the folder it always had.
    expect([first.marker, first["pages-dir"]]).toEqual(["proxybench", "dev/bench"]);
    expect([second.marker, second["pages-dir"]]).toEqual(["proxybench-grpc", "dev/bench-proxybench-grpc"]);
    // A folder given by the caller wins.
    expect((await runPlanScript({ ARTIFACT_PREFIX: "x", GH_PAGES_DIR: "perf/x" }))["pages-dir"]).toBe(
      "perf/x",
    );
    // A prefix the marker cannot hold is refused in the plan, naming the input.
    await expect(runPlanScript({ ARTIFACT_PREFIX: "a b" })).rejects.toThrow(/input 'artifact-prefix'/);
    expect(plan.outputs.marker).toBe("${{ steps.detect.outputs.marker }}");
    expect(plan.outputs["pages-dir"]).toBe("${{ steps.detect.outputs.pages-dir }}");
  });

  it("the report comments under that marker and links that folder; the publish job writes there", () => {
    const report = (bench.jobs.report?.steps ?? []).find((s) => s.id === "report");
    expect(report?.with?.marker).toBe("${{ needs.detect-env.outputs.marker }}");
    expect(report?.with?.["gh-pages-dir"]).toBe(
      "${{ inputs.publish && needs.detect-env.outputs.pages-dir || '' }}",
    );
    const publish = (bench.jobs.publish?.steps ?? []).find((s) => s.name === "Publish");
    expect(publish?.env?.DIR).toBe("${{ needs.detect-env.outputs.pages-dir }}");
    const inputs = (bench.on as { workflow_call: { inputs: Record<string, { default?: unknown }> } })
      .workflow_call.inputs;
    expect(inputs["gh-pages-dir"]?.default).toBe("");
  });
});

describe("base and head are measured in one run, interleaved on one runner", () => {
  const bench = read<Workflow>(BENCH);
  const steps = bench.jobs.bench?.steps ?? [];
  const runs = steps.filter((s) => s.uses === "./.proxybench/action");

  it("bench.yml calls the run action once, with both checkouts as variants", () => {
    expect(runs).toHaveLength(1);
    expect(runs[0]?.with).toMatchObject({
      "base-dir": "${{ needs.detect-env.outputs.base-sha != '' && 'base' || '' }}",
      "head-dir": "head",
      "proxies-dir": "${{ inputs.proxies-dir }}",
      "scenarios-dir": "${{ inputs.scenarios-dir }}",
    });
    const paths = steps.filter((s) => s.uses?.startsWith("actions/checkout@")).map((s) => s.with?.path);
    expect(paths).toEqual([".proxybench", "head", "base"]);
  });

  it("the report compares the one run's variants (paired), with no base-results", () => {
    const report = (bench.jobs.report?.steps ?? []).find((s) => s.id === "report");
    expect(report?.with?.results).toBe("results");
    expect(report?.with?.["base-results"]).toBeUndefined();
    const downloads = (bench.jobs.report?.steps ?? []).filter((s) =>
      s.uses?.startsWith("actions/download-artifact@"),
    );
    // Every shard's artifact, each into a folder of its own that the report action merges, and
    // the counted run's beside them.
    expect(downloads.map((d) => d.with)).toEqual([
      { pattern: "${{ inputs.artifact-prefix }}-results-*", path: "results" },
      {
        name: "${{ inputs.artifact-prefix }}-instructions",
        path: "results/${{ inputs.artifact-prefix }}-instructions",
      },
    ]);
  });

  it("the history gets the head's cells only", () => {
    const publish = (bench.jobs.publish?.steps ?? []).find((s) => s.name === "Publish");
    expect(cliCalls(publish?.run ?? "", publish?.env ?? {})).toEqual([
      {
        subcommand: "publish",
        flags: ["--variant", "--repo", "--branch", "--dir", "--max-items", "--changes", "--changes-out"],
      },
    ]);
  });

  it("the history's change points go to the chart, and new regressions to issues behind change-issues", () => {
    const steps = bench.jobs.publish?.steps ?? [];
    const names = steps.map((s) => s.name);
    expect(steps.find((s) => s.name === "Install proxybench and Apache Otava")?.run).toBe(
      "npm ci --no-audit --no-fund && npm run build && npm run setup -- --changes",
    );
    expect(steps.find((s) => s.name === "Publish")?.run).toContain("--changes --changes-out changes.json");
    const file = steps.find((s) => s.name === "File new regressions as issues");
    expect(names.indexOf("File new regressions as issues")).toBe(names.indexOf("Publish") + 1);
    expect(file?.if).toBe("${{ inputs.change-issues }}");
    expect(cliCalls(file?.run ?? "", file?.env ?? {})).toEqual([{ subcommand: "issues", flags: ["--repo"] }]);
    expect(file?.run).toBe('node "$PROXYBENCH" issues changes.json --repo "$REPOSITORY"');
    expect(file?.env).toMatchObject({
      GITHUB_TOKEN: "${{ github.token }}",
      REPOSITORY: "${{ github.repository }}",
    });
    expect(bench.jobs.publish?.permissions).toEqual({ contents: "write", issues: "write" });
    const inputs = (
      bench.on as { workflow_call: { inputs: Record<string, { type: string; default?: unknown }> } }
    ).workflow_call.inputs;
    expect(inputs["change-issues"]).toMatchObject({ type: "boolean", default: true });
  });

  it("splits the cells over `runners` runners, one shard each, and uploads one artifact per shard", () => {
    const job = bench.jobs.bench as Job & {
      strategy?: { "fail-fast"?: boolean; matrix?: Record<string, unknown> };
    };
    expect(job.strategy).toEqual({
      "fail-fast": false,
      matrix: { shard: "${{ fromJSON(needs.detect-env.outputs.shards) }}" },
    });
    expect(runs[0]?.with?.shard).toBe(
      "${{ inputs.runners > 1 && format('{0}/{1}', matrix.shard, inputs.runners) || '' }}",
    );
    expect(runs[0]?.with?.["artifact-name"]).toBe(
      "${{ inputs.artifact-prefix }}-results-${{ matrix.shard }}",
    );
    const plan = bench.jobs["detect-env"] as Job & { outputs: Record<string, string> };
    expect(plan.outputs.shards).toBe("${{ steps.detect.outputs.shards }}");
    const script = String((plan.steps ?? []).find((s) => s.id === "detect")?.with?.script);
    expect(script).toMatch(/input 'runners': expected a whole number/);
    // The shard list is set before the approval check returns: a skipped run still has a matrix.
    expect(script.indexOf('setOutput("shards"')).toBeLessThan(script.indexOf("return;"));
    const action = read<Action>(path.join(PROJECT_ROOT, "action/action.yml"));
    const run = (action.runs.steps ?? []).find((s) => s.id === "run");
    expect(run?.env?.SHARD).toBe("${{ inputs.shard }}");
    const wallClock = cliCalls(run?.run ?? "", run?.env ?? {}).find((c) => c.subcommand === "run");
    expect(wallClock?.flags).toContain("--shard");
  });

  it("compares only what differs between the checkouts (your proxies or scenarios), and never a study", () => {
    const plan = bench.jobs["detect-env"] as Job & { outputs: Record<string, string> };
    expect(plan.outputs["base-sha"]).toMatch(/inputs\.study == ''/);
    expect(plan.outputs["base-sha"]).toMatch(/inputs\.proxies-dir != '' \|\| inputs\.scenarios-dir != ''/);
  });
});

describe("the run action builds from outside the workspace", () => {
  it("allows Buildx to read the built-in proxies next to the action (buildx 0.20+ refuses otherwise)", () => {
    const action = read<Action>(path.join(PROJECT_ROOT, "action/action.yml"));
    const bake = (action.runs.steps ?? []).find((s) => s.uses?.startsWith("docker/bake-action@"));
    // The built-in proxies' folders (proxybench images) are next to the action.
    expect(bake?.env?.PROXY_CONTEXTS).toBe("${{ steps.head-contexts.outputs.contexts }}");
    expect(String(bake?.with?.allow)).toBe("fs.read=${{ github.action_path }}/..");
  });
});

describe("concurrency never cancels or drops a benchmark it should not", () => {
  const group = (c: Concurrency | string | undefined) => (typeof c === "string" ? c : (c?.group ?? ""));

  it("a label other than the approval label, and any event but a pull request, get a group of their own", () => {
    const files = [
      ".github/workflows/bench.yml",
      ".github/workflows/dogfood.yml",
      "workflows/pr-benchmark.yml",
      "workflows/fork-benchmark.yml",
    ];
    for (const file of files) {
      const wf = read<Workflow & { concurrency?: Concurrency }>(path.join(PROJECT_ROOT, file));
      const g = group(wf.concurrency).replace(/\s+/g, " ");
      expect(wf.concurrency?.["cancel-in-progress"], file).toBe(true);
      // The pull request's group only for its own events and the approval label ...
      expect(g, file).toMatch(
        /github\.event\.action != 'labeled' \|\| github\.event\.label\.name == 'safe-to-bench'/,
      );
      // ... anything else is unique to its run.
      expect(g, file).toMatch(/format\('run-\{0\}-\{1\}', github\.run_id, github\.run_attempt\)/);
    }
  });

  it("no fixed group holds benchmarks or publishes in a queue of one (it would drop the others)", () => {
    const problems: string[] = [];
    for (const file of WORKFLOWS) {
      const wf = read<Workflow & { concurrency?: Concurrency }>(file);
      const benchmarks = Object.values(wf.jobs).some((j) =>
        /bench\.yml|self-hosted/.test(`${j.uses ?? ""} ${JSON.stringify(j["runs-on"] ?? "")}`),
      );
      const places: Array<[string, Concurrency | string | undefined]> = [["workflow", wf.concurrency]];
      for (const [jobId, job] of Object.entries(wf.jobs) as Array<[string, FullJob]>) {
        const runsBench = JSON.stringify(job["runs-on"] ?? "").match(/self-hosted|inputs\.runs-on/);
        if (runsBench || jobId === "publish") places.push([jobId, job.concurrency]);
      }
      for (const [where, c] of places) {
        if (c === undefined || (where === "workflow" && !benchmarks)) continue;
        if (!group(c).includes("github.run_id"))
          problems.push(`${rel(file)} ${where}: group '${group(c)}' is shared by every run`);
      }
    }
    expect(problems).toEqual([]);
  });
});

describe("a cancelled or timed-out run leaves no container behind", () => {
  const action = read<Action>(path.join(PROJECT_ROOT, "action/action.yml"));
  const steps = action.runs.steps ?? [];
  const run = steps.find((s) => s.id === "run");
  const RUN_ID = "${{ github.run_id }}-${{ github.run_attempt }}-${{ github.job }}-${{ runner.name }}";

  it("the run labels its containers with an id the workflow knows: this run, attempt, job and runner", () => {
    expect(run?.env?.PROXYBENCH_RUN_ID).toBe(RUN_ID);
  });

  it("a step after the run, whatever its outcome (cancelled, timed out, failed), removes every container of that id", () => {
    const cleanup = steps.find((s) => s.name === "Remove the run's containers");
    expect(cleanup).toBeDefined();
    expect(steps.indexOf(cleanup!)).toBeGreaterThan(steps.indexOf(run!));
    // always(): also when the job is cancelled, which the runner does on a timeout too.
    expect(cleanup?.if).toBe("${{ always() && steps.run.outcome != 'skipped' }}");
    expect(cleanup?.env?.PROXYBENCH_RUN_ID).toBe(RUN_ID);
    expect(cliCalls(cleanup?.run ?? "", cleanup?.env ?? {})).toEqual([
      { subcommand: "containers", flags: ["--remove"] },
    ]);
    // A failed removal is reported without hiding the run's own outcome.
    expect(cleanup?.["continue-on-error"]).toBe(true);
  });
});

describe("bounded jobs, caches and history", () => {
  it("every job that runs steps has a time limit (a hung report or publish holds nothing forever)", () => {
    const problems: string[] = [];
    for (const file of WORKFLOWS) {
      for (const [jobId, job] of Object.entries(read<Workflow>(file).jobs) as Array<
        [string, FullJob & { "timeout-minutes"?: unknown }]
      >) {
        if (job.steps !== undefined && job["timeout-minutes"] === undefined)
          problems.push(`${rel(file)} ${jobId}`);
      }
    }
    expect(problems).toEqual([]);
    const bench = read<Workflow>(BENCH).jobs as Record<string, { "timeout-minutes"?: unknown }>;
    expect([bench.report?.["timeout-minutes"], bench.publish?.["timeout-minutes"]]).toEqual([15, 15]);
  });

  it("base and head images are cached under scopes of their own (mode=max: the last writer would win)", () => {
    const action = read<Action>(path.join(PROJECT_ROOT, "action/action.yml"));
    const bakes = (action.runs.steps ?? []).filter((s) => s.uses?.startsWith("docker/bake-action@"));
    const scopes = bakes.map((b) => b.env?.CACHE_SCOPE_PREFIX);
    expect(scopes).toEqual([
      "${{ inputs.base-dir != '' && 'proxybench-head' || 'proxybench' }}",
      "proxybench-base",
    ]);
    const hcl = readFileSync(path.join(PROJECT_ROOT, "action/docker-bake.hcl"), "utf8");
    expect(hcl).toContain('cache-to   = ["type=gha,mode=max,scope=${CACHE_SCOPE_PREFIX}-${p}"]');
  });

  it("Buildx is pinned to a version, not whatever setup-buildx finds latest", () => {
    const action = read<Action>(path.join(PROJECT_ROOT, "action/action.yml"));
    const setup = (action.runs.steps ?? []).find((s) => s.uses?.startsWith("docker/setup-buildx-action@"));
    // 0.20 or later: the bake step's `allow: fs.read=...` needs it.
    expect(String(setup?.with?.version)).toMatch(/^v0\.(2\d|[3-9]\d)\.\d+$/);
  });

  it("the publish job bounds the history (--max-items), 1000 points per suite unless the caller says", () => {
    const bench = read<Workflow>(BENCH);
    const inputs = (
      bench.on as { workflow_call: { inputs: Record<string, { default?: unknown; type: string }> } }
    ).workflow_call.inputs;
    expect(inputs["max-items"]).toMatchObject({ type: "number", default: 1000 });
    const publish = (bench.jobs.publish?.steps ?? []).find((s) => s.name === "Publish");
    expect(publish?.env?.MAX_ITEMS).toBe("${{ inputs.max-items }}");
    expect(publish?.run).toContain('--max-items "$MAX_ITEMS"');
  });
});

describe("concurrency of the comment and the counted benchmark", () => {
  const group = (c: Concurrency | string | undefined) =>
    (typeof c === "string" ? c : (c?.group ?? "")).replace(/\s+/g, " ");

  it("fork-comment.yml never lets a newer pending run replace an older one: no group shared between runs", () => {
    // A group keeps one pending run and cancels the pending one before it, whatever
    // cancel-in-progress says: the older head's comment would be lost. Each run comments; the
    // sticky comment itself never replaces one written for a newer head (src/github/comment.ts).
    const wf = read<Workflow & { concurrency?: Concurrency }>(
      path.join(PROJECT_ROOT, "workflows/fork-comment.yml"),
    );
    if (wf.concurrency !== undefined) {
      expect(group(wf.concurrency)).toMatch(/github\.run_id|github\.event\.workflow_run\.id/);
      expect(wf.concurrency["cancel-in-progress"]).not.toBe(true);
    }
    for (const job of Object.values(wf.jobs) as FullJob[]) expect(job.concurrency).toBeUndefined();
  });

  it("bench-instructions.yml cancels only a pull request's older run, never a push's run in progress", () => {
    const wf = read<Workflow & { concurrency: Concurrency }>(
      path.join(PROJECT_ROOT, ".github/workflows/bench-instructions.yml"),
    );
    const g = group(wf.concurrency);
    // A pull request's runs share its group (a new push cancels the older one) ...
    expect(g).toContain("github.event.pull_request && format('pr-{0}', github.event.pull_request.number)");
    // ... every other event (a push to main, a schedule) has a group of its own.
    expect(g).toMatch(/\|\| format\('run-\{0\}-\{1\}', github\.run_id, github\.run_attempt\)/);
    expect(g).not.toMatch(/github\.ref\b/);
  });
});

describe("pinned actions run on node24", () => {
  // The first release of each that runs on node24; earlier ones run on node20, which GitHub retires.
  const NODE24: Record<string, number> = {
    "actions/checkout": 5,
    "actions/setup-node": 5,
    "actions/github-script": 8,
    "actions/upload-artifact": 5,
    "actions/download-artifact": 6,
    "actions/setup-go": 6,
    "docker/setup-buildx-action": 4,
  };

  it("every pinned action listed above is at or past its node24 release", () => {
    const problems: string[] = [];
    for (const file of [...WORKFLOWS, ...ACTIONS]) {
      for (const m of readFileSync(file, "utf8").matchAll(/uses:\s*([^@\s]+)@[0-9a-f]{40}\s*#\s*v(\d+)/g)) {
        const first = NODE24[m[1]!];
        if (first !== undefined && Number(m[2]) < first) problems.push(`${rel(file)}: ${m[1]} v${m[2]}`);
      }
    }
    expect(problems).toEqual([]);
  });
});

describe("the docs tell what the approval label does and does not prevent", () => {
  const docs = readFileSync(path.join(PROJECT_ROOT, "docs/actions.md"), "utf8");
  const readme = readFileSync(path.join(PROJECT_ROOT, "README.md"), "utf8");

  it("docs/actions.md has a self-hosted runner checklist, each control with what it protects against", () => {
    const start = docs.indexOf("### Self-hosted runner checklist");
    expect(start).toBeGreaterThan(0);
    const section = docs.slice(start, docs.indexOf("\n### ", start + 1));
    expect(section).toMatch(/\| control \| where \| protects against \| does not protect against \|/);
    for (const control of [
      /Require approval for all outside collaborators/,
      /runner group limited to the benchmark workflow/,
      /Ephemeral or wiped runners/,
      /No secrets on the runner/,
      /Network egress limited/,
    ])
      expect(section).toMatch(control);
  });

  it("neither README nor docs claim the label keeps a fork off the runner; both say it does not", () => {
    for (const text of [readme, docs].map((t) => t.replace(/\s+/g, " "))) {
      expect(text).not.toMatch(/never reaches? a self-hosted runner unless/);
      expect(text).toMatch(/does \*\*not\*\*/);
      expect(text).toMatch(/fork can edit the caller/);
    }
    expect(readme).toContain("docs/actions.md#self-hosted-runner-checklist");
  });

  it("docs tell how to split over several runners, and k6-operator as the path past one load generator", () => {
    const start = docs.indexOf("## Several runners");
    expect(start).toBeGreaterThan(0);
    const section = docs.slice(start, docs.indexOf("\n## ", start + 1));
    expect(section).toMatch(/runners: 3/);
    expect(section).toMatch(/--shard I\/3/);
    expect(section).toMatch(/--dry-run/);
    expect(section).toMatch(/pairs never cross machines/);
    expect(section).toMatch(/### Past one machine's load generator \(on paper\)/);
    expect(section).toMatch(/k6-operator/);
    expect(section).toMatch(/Nothing of this is built/);
  });

  it("docs say why bench.yml reads the job context rather than an OIDC token, and what GHES callers set", () => {
    expect(docs).toMatch(/job\.workflow_repository/);
    expect(docs).toMatch(/job\.workflow_sha/);
    expect(docs).toMatch(/GitHub Enterprise Server does not set these job context properties/);
  });
});

describe("docs/actions.md documents the inputs as bench.yml and the run action declare them", () => {
  const docs = readFileSync(path.join(PROJECT_ROOT, "docs/actions.md"), "utf8");
  /** The `| \`name\` |` rows of the first table after `heading`. */
  const rows = (heading: string): Map<string, string> => {
    const start = docs.indexOf(heading);
    expect(start, heading).toBeGreaterThan(0);
    const table = docs.slice(docs.indexOf("### Inputs", start), docs.indexOf("### Outputs", start));
    return new Map([...table.matchAll(/^\| `([a-z0-9-]+)` \|(.*)$/gm)].map((m) => [m[1]!, m[2]!]));
  };
  const benchInputs = Object.keys(
    (read<Workflow>(BENCH).on as { workflow_call: { inputs: Record<string, unknown> } }).workflow_call.inputs,
  );
  const action = read<Action & { inputs: Record<string, { description: string }> }>(
    path.join(PROJECT_ROOT, "action/action.yml"),
  );

  it("every input has a row, and every row an input", () => {
    expect([...rows("## `bench.yml`").keys()].sort()).toEqual([...benchInputs].sort());
    expect([...rows("## `action/` (composite)").keys()].sort()).toEqual(Object.keys(action.inputs).sort());
    expect(rows("## `action/` (composite)").get("shard")).toMatch(/INDEX\/COUNT/);
  });

  it("the study input names the studies bench.yml and the action name, each one of studies/", () => {
    const named = (text: string) =>
      [...text.matchAll(/\b(yarp-vs-httpclient|llrp|ocelot|grpc-gateway|extensibility)\b/g)].map((m) => m[1]);
    const bench = (
      read<Workflow>(BENCH).on as { workflow_call: { inputs: Record<string, { description: string }> } }
    ).workflow_call.inputs.study!.description;
    const expected = named(bench);
    expect(expected).toContain("grpc-gateway");
    for (const study of expected)
      expect(existsSync(path.join(PROJECT_ROOT, "studies", study!, "study.yml"))).toBe(true);
    expect(named(action.inputs.study!.description)).toEqual(expected);
    expect(named(rows("## `bench.yml`").get("study")!)).toEqual(expected);
    expect(named(rows("## `action/` (composite)").get("study")!)).toEqual(expected);
  });
});

describe("the threat table of docs/actions.md", () => {
  const docs = readFileSync(path.join(PROJECT_ROOT, "docs/actions.md"), "utf8");
  const start = docs.indexOf("### Threats and the tests that hold them");
  const rows = docs
    .slice(start, docs.indexOf("\n## ", start))
    .split("\n")
    .filter((l) => /^\| \d+ \|/.test(l));

  it("lists every threat of the audits, one a row, each with a test or marked by design with the operator's control", () => {
    expect(start).toBeGreaterThan(0);
    const numbers = rows.map((r) => Number(/^\| (\d+) \|/.exec(r)![1]));
    expect(numbers).toEqual(Array.from({ length: 27 }, (_, i) => i + 1));
    for (const row of rows) {
      const cells = row.split(" | ");
      const [fixedBy, tests] = [cells.at(-2) ?? "", cells.at(-1) ?? ""];
      if (tests === "by design |") expect(fixedBy, row).toMatch(/^by design: .*The operator's controls?: /);
      else expect(tests, row).toMatch(/^`test\/[^`]+\.test\.ts` "[^"]+"/);
    }
  });

  it("every test it names exists, in the file it names", () => {
    const missing: string[] = [];
    let named = 0;
    for (const row of rows) {
      for (const [, file, name] of row.matchAll(/`(test\/[^`]+\.test\.ts)` "([^"]+)"/g)) {
        named++;
        const full = path.join(PROJECT_ROOT, file!);
        const text = existsSync(full) ? readFileSync(full, "utf8") : "";
        if (!text.includes(`"${name!}"`) && !text.includes(`'${name!}'`) && !text.includes(`\`${name!}\``))
          missing.push(`${file}: "${name}"`);
      }
    }
    expect(missing).toEqual([]);
    expect(named).toBeGreaterThanOrEqual(27);
  });

  it("every zizmor ignore comment in the workflows and actions has its row, file and audit, saying why", () => {
    const table = docs.slice(
      docs.indexOf("#### zizmor's findings left in place"),
      docs.indexOf("\n## ", start),
    );
    const justified = table
      .split("\n")
      .filter((l) => /^\| `/.test(l))
      .map((l) => l.split(" | "));
    const unjustified: string[] = [];
    let ignores = 0;
    for (const file of [...WORKFLOWS, ...ACTIONS]) {
      for (const m of readFileSync(file, "utf8").matchAll(/# zizmor: ignore\[([a-z-]+)\]/g)) {
        ignores++;
        const row = justified.find(([files, audit]) => files!.includes(`\`${rel(file)}\``) && audit === m[1]);
        if (row === undefined || (row[2] ?? "").length < 40) unjustified.push(`${rel(file)}: ${m[1]}`);
      }
    }
    expect(unjustified).toEqual([]);
    expect(ignores).toBeGreaterThanOrEqual(7);
  });
});

describe("the counted benchmark's fork-safe pair", () => {
  const wf = (file: string) => read<Workflow>(path.join(PROJECT_ROOT, file));
  const text = (file: string) => readFileSync(path.join(PROJECT_ROOT, file), "utf8");

  it("bench-instructions.yml counts base and head as variants of one run with a read-only token", () => {
    const bench = wf(".github/workflows/bench-instructions.yml");
    for (const [name, job] of Object.entries(bench.jobs)) {
      expect(job.permissions, name).toEqual({ contents: "read" });
      expect(job["runs-on"], name).toBe("ubuntu-latest");
    }
    const steps = Object.values(bench.jobs).flatMap((j) => j.steps ?? []);
    const count = steps.find((s) => s.run?.includes("proxybench.js count "))?.run ?? "";
    expect(count).toMatch(/--variant "base=[^"]+" --variant "head=[^"]+"/);
    expect(steps.filter((s) => /compare \.\.\/results /.test(s.run ?? ""))).toHaveLength(2);
    const upload = steps.find((s) => s.uses?.startsWith("actions/upload-artifact@"));
    expect(upload?.with?.name).toBe("${{ inputs.artifact-prefix }}-results");
  });

  it("fork-comment.yml answers the documented caller by name and downloads its artifact", () => {
    const docs = text("docs/actions.md");
    const block = [...docs.matchAll(/```yaml\n([\s\S]*?)```/g)]
      .map((m) => m[1] ?? "")
      .find((y) => y.includes("name: proxybench instructions benchmark"));
    const caller = parseYaml(block ?? "") as Workflow & { name: string };
    expect(caller.permissions).toEqual({});
    expect(caller.concurrency).toBeDefined();
    const job: (Job & { with?: Record<string, string> }) | undefined = Object.values(caller.jobs)[0];
    // Pinned to a commit, and no proxybench ref beside it that could move (bench-instructions.yml
    // checks out the proxybench of its own uses:).
    expect(job?.uses).toMatch(/^org\/proxybench\/\.github\/workflows\/bench-instructions\.yml@[0-9a-f]{40}$/);
    expect(job?.with?.["proxybench-ref"]).toBeUndefined();
    expect(job?.with?.["proxybench-repository"]).toBeUndefined();
    expect(job?.permissions).toEqual({ contents: "read" });
    const prefix = job?.with?.["artifact-prefix"];
    const comment = text("workflows/fork-comment.yml");
    expect(comment).toContain(`"${caller.name}"`);
    expect(comment).toContain(`name: ${prefix}-results`);
    expect(comment).toContain(`github.event.workflow_run.name == '${caller.name}'`);
  });
});

describe("bench.yml counts instructions beside the wall-clock rounds, and the comment leads with them", () => {
  const bench = read<Workflow>(BENCH);
  const count = bench.jobs.count;
  const countStep = (count?.steps ?? []).find((s) => s.run?.includes("proxybench.js count "));

  /** The step's shell code as the runner runs it, with `node` recording the arguments it is given. */
  function countArgs(env: Record<string, string>): string[] {
    const bin = path.join(PROJECT_ROOT, "node_modules", ".cache", "pb-count-stub");
    const result = spawnSync(
      "bash",
      [
        "-c",
        `mkdir -p "${bin}" && printf '#!/bin/sh\\nfor a; do echo "$a"; done\\n' > "${bin}/node" && chmod +x "${bin}/node" && PATH="${bin}:$PATH" && ${countStep?.run ?? "exit 99"}`,
      ],
      {
        env: {
          PATH: process.env.PATH,
          PROXIES: "nginx,envoy",
          SCENARIOS: "passthrough",
          REPETITIONS: "3",
          BASE: "",
          PROXIES_DIR: "",
          SCENARIOS_DIR: "",
          COUNT_IN: "native",
          ...env,
        },
        encoding: "utf8",
      },
    );
    expect(result.status, result.stderr).toBe(0);
    return result.stdout.trim().split("\n");
  }

  it("a job on a hosted runner with a read-only token, for every approved call without a study", () => {
    expect(count?.["runs-on"]).toBe("ubuntu-latest");
    expect(count?.permissions).toEqual({ contents: "read" });
    expect(count?.needs).toBe("detect-env");
    expect(count?.if).toContain("needs.detect-env.outputs.approved == 'true'");
    expect(count?.if).toContain("inputs.study == ''");
  });

  it("counts base and head as variants of one run, with the caller's proxies-dir inside each checkout", () => {
    const args = countArgs({ BASE: "../base", PROXIES_DIR: "bench/proxies" });
    expect(args.slice(0, 3)).toEqual(["./bin/proxybench.js", "count", "--proxies"]);
    expect(args.join(" ")).toContain("--variant base=../base --variant head=../head");
    expect(args.join(" ")).toContain("--variant-proxies-dir bench/proxies");
    expect(args).not.toContain("--proxies-dir");
    const alone = countArgs({ PROXIES_DIR: "bench/proxies" });
    expect(alone).not.toContain("--variant");
    expect(alone.join(" ")).toContain("--proxies-dir ../head/bench/proxies");
  });

  it("count-in: images counts each side's image with Valgrind, under the tags the bake steps give them", () => {
    const args = countArgs({ BASE: "../base", PROXIES_DIR: "bench/proxies", COUNT_IN: "images" }).join(" ");
    expect(args).toContain("--runtime docker");
    expect(args).toContain("--variant base:count-base=../base --variant head:count-head=../head");
    expect(args).not.toContain("--variant base=../base");
    const alone = countArgs({ COUNT_IN: "images" }).join(" ");
    expect(alone).toContain("--image-tag count-head");
    const steps = count?.steps ?? [];
    const bakes = steps.filter((s) => s.uses?.startsWith("docker/bake-action@"));
    expect(bakes.map((b) => b.env?.IMAGE_TAG)).toEqual(["count-head", "count-base"]);
    for (const b of bakes) {
      expect(b.with?.targets).toBe("counted");
      expect(b.if).toContain("inputs.count-in == 'images'");
    }
    // the run looks for <image>-valgrind (countedImageRef); the bake file tags the counted target so
    const hcl = readFileSync(path.join(PROJECT_ROOT, "action", "docker-bake.hcl"), "utf8");
    const counted = hcl.slice(hcl.indexOf('target "counted"'));
    expect(counted).toContain('tags       = ["proxybench/${p}:${IMAGE_TAG}-valgrind"]');
    expect(counted).toContain('proxy = "target:proxy-${p}"');
    expect(countedImageRef(imageRef("nginx", "count-head"))).toBe("proxybench/nginx:count-head-valgrind");
  });

  it("count-in must be native or images", () => {
    const result = spawnSync("bash", ["-c", countStep?.run ?? "exit 99"], {
      env: { PATH: process.env.PATH, COUNT_IN: "docker" },
      encoding: "utf8",
    });
    expect(result.status).toBe(1);
    expect(result.stdout).toContain("::error::count-in: expected native or images, got 'docker'");
  });

  it("the counted run takes those flags (a proxy it does not know is the first thing it refuses)", () => {
    const args = countArgs({
      BASE: "../base",
      PROXIES_DIR: "bench/proxies",
      SCENARIOS_DIR: "bench/scenarios",
    });
    const run = spawnSync(
      process.execPath,
      [path.join(PROJECT_ROOT, "bin", "proxybench.js"), ...args.slice(1)],
      {
        cwd: PROJECT_ROOT,
        encoding: "utf8",
      },
    );
    expect(run.status).not.toBe(0);
    expect(run.stderr).not.toMatch(/cannot be used together|unknown option/);
    expect(run.stderr).toMatch(/--variant|base/);
  });

  it("the report job downloads the counted artifact beside the shards, under the name the count job uploads", () => {
    const report = bench.jobs.report as Job & { needs?: string[] };
    expect(report.needs).toContain("count");
    const upload = (count?.steps ?? []).find((s) => s.uses?.startsWith("actions/upload-artifact@"));
    const download = (report.steps ?? []).find((s) => s.name === "Download the counted results");
    expect(download?.with?.name).toBe(upload?.with?.name);
    expect(download?.if).toBe("${{ needs.count.result == 'success' }}");
    expect(String(download?.with?.path)).toBe(`results/${String(upload?.with?.name)}`);
    const compare = (report.steps ?? []).find((s) => s.id === "report");
    expect(compare?.with?.results).toBe("results");
    expect(compare?.with?.floor).toBe("${{ inputs.floor }}");
  });
});

describe("the shipped callers reach a verdict with their own matrices and defaults", () => {
  const benchInputs = read<
    Workflow & { on: { workflow_call: { inputs: Record<string, { default?: unknown }> } } }
  >(BENCH).on.workflow_call.inputs;

  const str = (v: unknown, otherwise = ""): string =>
    typeof v === "string" || typeof v === "number" ? String(v) : otherwise;

  /** Every caller that compares base and head: its proxies, scenarios and the rounds it asks for. */
  function comparingCallers(): Array<{
    where: string;
    proxies: string;
    scenarios: string;
    repetitions: string;
    budget: string;
  }> {
    const out = [];
    for (const [file, jobId, job] of benchCallers()) {
      const w = (job as { with?: Record<string, unknown> }).with ?? {};
      const compares = w["compare-with"] !== "none" && (w["proxies-dir"] ?? w["scenarios-dir"]) !== undefined;
      if (!compares) continue;
      const input = (name: string) => str(w[name] ?? benchInputs[name]?.default);
      out.push({
        where: `${file}: ${jobId}`,
        proxies: input("proxies"),
        scenarios: input("scenarios"),
        repetitions: input("repetitions"),
        budget: input("budget"),
      });
    }
    const fork = read<Workflow>(path.join(PROJECT_ROOT, "workflows/fork-benchmark.yml"));
    for (const step of Object.values(fork.jobs).flatMap((j) => j.steps ?? [])) {
      const w = step.with ?? {};
      if (!step.uses?.startsWith("org/proxybench/action@") || w["base-dir"] === undefined) continue;
      out.push({
        where: "workflows/fork-benchmark.yml",
        proxies: str(w.proxies),
        scenarios: str(w.scenarios),
        repetitions: str(w.repetitions, "5"),
        budget: str(w.budget),
      });
    }
    return out;
  }

  it("plans enough rounds that the exact test can reject for every tested metric of the family", () => {
    const callers = comparingCallers();
    expect(callers.map((c) => c.where)).toEqual(
      expect.arrayContaining(["workflows/pr-benchmark.yml: bench", "workflows/fork-benchmark.yml"]),
    );
    const empty = mkdtempSync(path.join(tmpdir(), "pb-callers-"));
    mkdirSync(path.join(empty, "proxies"));
    for (const c of callers) {
      const args = ["run", "--dry-run", "--runtime", "docker", "-p", c.proxies, "-s", c.scenarios];
      args.push("--variant", `base:t-base=${empty}`, "--variant", `head:t-head=${empty}`);
      args.push("--repetitions", c.repetitions, ...(c.budget ? ["--budget", c.budget] : []));
      const run = spawnSync(process.execPath, [path.join(PROJECT_ROOT, "bin", "proxybench.js"), ...args], {
        cwd: PROJECT_ROOT,
        encoding: "utf8",
      });
      expect(run.status, `${c.where}: ${run.stderr}`).toBe(0);
      const plan = /(\d+) cell\(s\), (\d+) repetition\(s\) each/.exec(run.stdout);
      const cells = Number(plan?.[1]) / 2;
      const rounds = Number(plan?.[2]);
      // What a new run tests per cell (the proxy's CPU per request and p99). The exact
      // Wilcoxon test's smallest two-sided p over n pairs is 2 / 2^n; Holm's first step needs it
      // at or below alpha / m.
      expect(2 / 2 ** rounds, `${c.where}: ${cells} cells, ${rounds} rounds`).toBeLessThanOrEqual(
        0.05 / (cells * PRIMARY_METRICS.length),
      );
    }
  });

  it("a run with no base (a push, a schedule) takes 10 repetitions: auto sizes a comparison only", () => {
    const bench = read<Workflow>(BENCH).jobs.bench;
    const step = (bench?.steps ?? []).find((s) => s.id === "bench");
    expect(step?.with?.repetitions).toBe(
      "${{ (inputs.repetitions != 'auto' || needs.detect-env.outputs.base-sha != '') && inputs.repetitions || '10' }}",
    );
    const alone = spawnSync(
      process.execPath,
      [
        path.join(PROJECT_ROOT, "bin", "proxybench.js"),
        "run",
        "--dry-run",
        "-p",
        "nginx",
        "--repetitions",
        "auto",
      ],
      { cwd: PROJECT_ROOT, encoding: "utf8" },
    );
    expect(alone.stderr).toMatch(/--repetitions auto goes with --variant/);
  });
});

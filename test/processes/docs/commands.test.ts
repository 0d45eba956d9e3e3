import type { Command, Option } from "commander";
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { buildProgram } from "../../../src/cli.js";
import { runCli } from "../../support/commands/cli.js";
import { runRequest, toRequest, type FlagValues } from "../../../src/commands/options.js";
import { studyOverrides } from "../../../src/commands/study.js";
import { loadManifests } from "../../../src/manifests/load.js";
import { buildPlan } from "../../../src/runner/plan.js";
import { coreCount, resolveSettings, type RunRequest } from "../../../src/runner/settings.js";
import { prepareStudy } from "../../../src/measures/study/run.js";
import { PROJECT_ROOT } from "../../../src/util/paths.js";
import {
  commandCheck,
  documentedCommands,
  extractCommands,
  fencedBlocks,
  shellCommands,
  isConcrete,
  isPlaceholder,
  shellWords,
  type DocCommand,
} from "../../support/docs/commands.js";

const commands = documentedCommands(PROJECT_ROOT);
const where = (c: DocCommand) => `${c.file}:${c.line}: ${c.text}`;

function findOption(cmd: Command, program: Command, flag: string): Option | undefined {
  const name = flag.split("=")[0];
  // A hidden option is a mode that moved to a command of its own: documented, it is a mistake.
  return [...cmd.options, ...program.options].find((o) => !o.hidden && (o.long === name || o.short === name));
}

/** Problems of a synopsis (placeholders, [optional] parts) against the commander program. */
function synopsisProblems(c: DocCommand): string[] {
  const program = buildProgram();
  const [name, ...rest] = c.words;
  const sub = program.commands.find((s) => s.name() === name);
  if (!sub) return [`unknown subcommand '${name}'`];
  const words = rest.map((w) => w.replace(/[[\]()]/g, "")).filter((w) => w && w !== "|" && w !== "...");
  const problems: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (!word.startsWith("-")) continue;
    if (word === "--help" || word === "-h") continue;
    const option = findOption(sub, program, word);
    if (!option) {
      problems.push(`${name}: unknown flag ${word}`);
      continue;
    }
    if (!option.required && !option.optional) continue;
    const value = word.includes("=") ? word.slice(word.indexOf("=") + 1) : words[++i];
    // `[--format ...]`: no value shown; the next word is the next flag
    if (value?.startsWith("-")) i--;
    if (value === undefined || value.startsWith("-") || isPlaceholder(value) || !option.argChoices) continue;
    for (const v of value.split("|")) {
      if (!option.argChoices.includes(v))
        problems.push(`${name}: ${word} ${v}: not one of ${option.argChoices.join(", ")}`);
    }
  }
  return problems;
}

/** Parses a concrete command with the real program, every action replaced by a capture. */
async function parse(c: DocCommand): Promise<{ name: string; args: unknown[] }> {
  const program = buildProgram();
  let captured: { name: string; args: unknown[] } | undefined;
  for (const sub of program.commands) {
    sub.action((...args: unknown[]) => {
      captured = { name: sub.name(), args };
    });
  }
  program.configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
  await program.parseAsync(["node", "proxybench", ...c.words]);
  if (!captured) throw new Error("no subcommand ran");
  return captured;
}

/** What `proxybench run` or `proxybench study NAME` would plan for these flags, without running anything. */
async function planRun(flags: FlagValues, study?: string) {
  if (flags.resume !== undefined) return;
  let request: RunRequest = study === undefined ? runRequest(flags) : toRequest(flags);
  if (study !== undefined) {
    const prepared = await prepareStudy(study, studyOverrides(flags), {});
    // Proxies this machine has not installed (Apollo Router until `npm run setup -- --study
    // extensibility` builds it) plan nothing here: each skipped with the command that installs it.
    if (prepared.split.runnable.length === 0) {
      for (const s of prepared.split.skipped)
        expect(s.reason, s.proxy).toMatch(/not found \(fix: npm run setup/);
      return;
    }
    request = prepared.request;
  }
  const { settings } = resolveSettings(request, Math.max(2, coreCount()));
  const manifests = await loadManifests({
    ...(settings.proxiesDirs ? { proxiesDirs: settings.proxiesDirs } : {}),
    ...(settings.scenariosDirs ? { scenariosDirs: settings.scenariosDirs } : {}),
  });
  const plan = buildPlan(settings, manifests);
  expect(plan.blocks.length).toBeGreaterThan(0);
}

describe("the commands README.md and docs/ show", () => {
  it("are found (fenced and inline)", () => {
    expect(commands.filter((c) => c.fenced).length).toBeGreaterThan(10);
    expect(commands.map((c) => c.text)).toContain("proxybench run --engine wrk --load max");
  });

  it.each(commands.filter((c) => !isConcrete(c)).map((c) => [where(c), c] as const))(
    "%s: its subcommand and flags exist",
    (_, c) => {
      expect(synopsisProblems(c)).toEqual([]);
    },
  );

  // README.md's fenced commands run in order in a copy of the checkout (below): one may need
  // what an earlier one made (my-proxies/, ../base).
  const planned = commands.filter((c) => isConcrete(c) && !(c.file === "README.md" && c.fenced));
  it.each(planned.map((c) => [where(c), c] as const))(
    "%s: parses, and a run plans without an error",
    async (_, c) => {
      expect(synopsisProblems(c)).toEqual([]);
      const { name, args } = await parse(c);
      if (name === "run") await planRun(args[0] as FlagValues);
      if (name === "study") await planRun(args[1] as FlagValues, args[0] as string);
    },
  );
});

describe("the cheap documented commands run as written", () => {
  const cheap = [
    ...new Set(
      commands
        .filter((c) => isConcrete(c) && ["list", "doctor"].includes(c.words[0]!))
        .map((c) => c.words.join(" ")),
    ),
  ];

  it.each(cheap)("proxybench %s", async (line) => {
    const { code, out } = await runCli(line.split(" "));
    // doctor exits 1 when this machine lacks something the default benchmark needs.
    expect(line.startsWith("doctor") ? [0, 1] : [0]).toContain(code);
    expect(out).not.toMatch(/\n\s+at /);
    expect(out.length).toBeGreaterThan(0);
  });
});

describe("extracting commands from markdown", () => {
  it("fenced lines, continuations, comments and inline spans", () => {
    const md = [
      "Try `proxybench run --engine\nwrk` or `npm test`.",
      "```sh",
      "npx proxybench doctor   # is this machine ready?",
      "proxybench run -p nginx \\",
      "  -s passthrough",
      "## proxybench compare: 3 regressions",
      "```",
    ].join("\n");
    expect(extractCommands("x.md", md).map((c) => [c.line, c.words.join(" "), c.fenced])).toEqual([
      [4, "doctor", true],
      [5, "run -p nginx -s passthrough", true],
      [1, "run --engine wrk", false],
    ]);
  });

  it("quotes and placeholders", () => {
    expect(shellWords(`publish results --repo "https://x/\${R}.git" # c`)).toEqual([
      "publish",
      "results",
      "--repo",
      "https://x/${R}.git",
    ]);
    expect(["DIR", "NAME=FILE", "O/N", "[--format", "..."].every(isPlaceholder)).toBe(true);
    expect(["nginx", "results", "--load"].some(isPlaceholder)).toBe(false);
  });
});

/** What happened to one fenced shell command of a markdown text. */
interface Outcome {
  where: string;
  outcome: string;
}

/** A copy of the checkout to run documented commands in: a folder of links to its entries. */
async function sandbox(): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), "pb-readme-"));
  const dir = path.join(root, "proxybench");
  await mkdir(dir);
  for (const entry of await readdir(PROJECT_ROOT)) {
    if (entry !== "results" && entry !== ".git")
      await symlink(path.join(PROJECT_ROOT, entry), path.join(dir, entry));
  }
  return dir;
}

/**
 * Runs a markdown text's fenced shell commands in order in `dir` (a run planned only, see
 * commandCheck); a YAML block after a line naming a `.../proxy.yml` is written there first.
 * Each command must exit 0 (doctor: 0 or 1) and print no stack.
 */
async function runFencedCommands(file: string, markdown: string, dir: string): Promise<Outcome[]> {
  const scripts = (
    JSON.parse(await readFile(path.join(PROJECT_ROOT, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    }
  ).scripts;
  const bin = path.join(PROJECT_ROOT, "bin", "proxybench.js");
  const outcomes: Outcome[] = [];
  for (const block of fencedBlocks(markdown)) {
    const target = /`([\w./-]+\/proxy\.yml)`/.exec(block.before)?.[1];
    if (block.lang === "yaml" && target !== undefined) {
      await mkdir(path.dirname(path.join(dir, target)), { recursive: true });
      await writeFile(path.join(dir, target), `${block.lines.join("\n")}\n`);
    }
    for (const { line, text } of shellCommands(block)) {
      const check = commandCheck(text, scripts, bin);
      const where = `${file}:${line}: ${text}`;
      if ("skip" in check) {
        outcomes.push({ where, outcome: `not run: ${check.skip}` });
        continue;
      }
      const r = await promisify(execFile)("bash", ["-c", check.run], { cwd: dir, timeout: 60_000 }).then(
        () => ({ code: 0, output: "" }),
        (e: { code?: number; stdout?: string; stderr?: string }) => ({
          code: e.code ?? 1,
          output: `${e.stdout ?? ""}${e.stderr ?? ""}`,
        }),
      );
      const allowed = /proxybench\.js doctor\b/.test(check.run) ? [0, 1] : [0];
      outcomes.push({
        where,
        outcome:
          allowed.includes(r.code) && !/\n\s+at /.test(r.output)
            ? "ok"
            : `exit ${r.code}: ${r.output.trim()}`,
      });
    }
  }
  return outcomes;
}

describe("README.md's fenced shell commands run as a newcomer types them (a run only planned)", () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const d of dirs) await rm(path.dirname(d), { recursive: true, force: true });
  });

  it("every one: ok, or not run for a stated reason", async () => {
    const dir = await sandbox();
    dirs.push(dir);
    const readme = await readFile(path.join(PROJECT_ROOT, "README.md"), "utf8");
    const outcomes = await runFencedCommands("README.md", readme, dir);
    expect(outcomes.length).toBeGreaterThanOrEqual(5);
    expect(outcomes.filter((o) => !o.outcome.startsWith("ok") && !o.outcome.startsWith("not run"))).toEqual(
      [],
    );
    // the proxy.yml of the first screen was written, loaded and planned
    expect(outcomes.find((o) => o.where.includes("mynginx"))?.outcome).toBe("ok");
  }, 180_000);

  it("a usage error, an unknown npm script or a command with no rule fails the check", async () => {
    const dir = await sandbox();
    dirs.push(dir);
    const md = [
      "```sh",
      "npx proxybench run --proxies nginx --duraton 5",
      "npm run quickstrat",
      "curl -s https://example.com",
      "npx proxybench list",
      "```",
    ].join("\n");
    const outcomes = await runFencedCommands("x.md", md, dir);
    expect(outcomes.map((o) => o.outcome.split(":")[0])).toEqual(["exit 2", "exit 2", "exit 2", "ok"]);
    expect(outcomes[0]!.outcome).toContain("unknown option '--duraton'");
    expect(outcomes[2]!.outcome).toContain("no rule checks this command");
  }, 120_000);

  it("the README's first screen holds what a newcomer needs", async () => {
    const first = (await readFile(path.join(PROJECT_ROOT, "README.md"), "utf8"))
      .split("\n")
      .slice(0, 60)
      .join("\n");
    for (const needed of [
      "**Requirements**",
      "git clone",
      "npm run quickstart",
      "npm test",
      "results.json",
      "--variant base=",
      "proxy.yml",
      "bench.yml@",
      "docs/runner.md",
    ])
      expect(first).toContain(needed);
  });
});

describe("scripts/setup.sh: the first build's two minutes are k6's", () => {
  it("go_install says so for k6 only", async () => {
    const setup = await readFile(path.join(PROJECT_ROOT, "scripts", "setup.sh"), "utf8");
    const fn = /^go_install\(\) \{[\s\S]*?^\}$/m.exec(setup)?.[0];
    expect(fn).toBeDefined();
    const tools = await mkdtemp(path.join(tmpdir(), "pb-setup-"));
    // `go` stands in for the build: this checks the message, not Go.
    const script = `say() { echo "$*"; }; go() { :; }; tools=${tools}; mkdir -p $tools/bin\n${fn}\ngo_install k6 go.k6.io/k6@v1.8.1\ngo_install vegeta github.com/tsenart/vegeta/v12@v12.13.0\n`;
    const { stdout } = await promisify(execFile)("bash", ["-c", script]);
    await rm(tools, { recursive: true, force: true });
    expect(stdout.trim().split("\n")).toEqual([
      "building k6 v1.8.1 (go install; about two minutes the first time)",
      "building vegeta v12.13.0 (go install)",
    ]);
  });
});

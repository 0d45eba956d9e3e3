import type { Command, Option } from "commander";
import { describe, expect, it } from "vitest";
import { buildProgram } from "../../src/cli.js";
import { runCli } from "../commands/cli.js";
import { checkModes, studyOverrides, toRequest } from "../../src/commands/run.js";
import { loadManifests } from "../../src/manifests/load.js";
import { buildPlan } from "../../src/runner/plan.js";
import { coreCount, resolveSettings, type RunRequest } from "../../src/runner/settings.js";
import { prepareStudy } from "../../src/studies/run.js";
import { PROJECT_ROOT } from "../../src/util/paths.js";
import {
  documentedCommands,
  extractCommands,
  isConcrete,
  isPlaceholder,
  shellWords,
  type DocCommand,
} from "./commands.js";

const commands = documentedCommands(PROJECT_ROOT);
const where = (c: DocCommand) => `${c.file}:${c.line}: ${c.text}`;

function findOption(cmd: Command, program: Command, flag: string): Option | undefined {
  const name = flag.split("=")[0];
  return [...cmd.options, ...program.options].find((o) => o.long === name || o.short === name);
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
    if (value === undefined || isPlaceholder(value) || !option.argChoices) continue;
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

/** What `proxybench run` would plan for these flags, without running anything. */
async function planRun(flags: Parameters<typeof toRequest>[0] & { study?: string; findMaxRate?: boolean }) {
  checkModes(flags);
  if (flags.findMaxRate || flags.resume !== undefined) return;
  let request: RunRequest = toRequest(flags);
  if (flags.study !== undefined)
    request = (await prepareStudy(flags.study, studyOverrides(flags), {})).request;
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

  it.each(commands.filter(isConcrete).map((c) => [where(c), c] as const))(
    "%s: parses, and a run plans without an error",
    async (_, c) => {
      const { name, args } = await parse(c);
      if (name === "run") await planRun(args[0] as Parameters<typeof planRun>[0]);
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

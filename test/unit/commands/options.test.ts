import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import { buildProgram } from "../../../src/cli.js";
import { runRequest, toRequest, type FlagValues } from "../../../src/commands/options.js";

/** The long flags a command shows (its hidden ones are the modes that moved out of it). */
function flagsOf(name: string): string[] {
  const command = buildProgram().commands.find((c) => c.name() === name);
  if (!command) throw new Error(`no command ${name}`);
  return command.options.filter((o) => !o.hidden).map((o) => o.long ?? "");
}

/** The flags commander hands the command's action for these words. */
async function parsedFlags(words: string[]): Promise<FlagValues> {
  const program = buildProgram();
  let flags: FlagValues | undefined;
  for (const sub of program.commands) {
    sub.action((...args: unknown[]) => {
      flags = args.find((a): a is FlagValues => typeof a === "object" && !(a as Command).name) ?? {};
    });
  }
  await program.parseAsync(["node", "proxybench", ...words]);
  if (!flags) throw new Error("no command ran");
  return flags;
}

describe("each measuring command has the flags it reads, and no other", () => {
  it("count: what a counted run reads (variants and images too, its dry run; no engine, lengths or loads)", () => {
    expect(flagsOf("count").sort()).toEqual(
      [
        "--proxies",
        "--scenarios",
        "--repetitions",
        "--cpus",
        "--runtime",
        "--image-tag",
        "--proxies-dir",
        "--scenarios-dir",
        "--variant",
        "--variant-proxies-dir",
        "--variant-scenarios-dir",
        "--out",
        "--dry-run",
      ].sort(),
    );
  });

  it("study: the overrides of the study's own settings, and its dry run", () => {
    expect(flagsOf("study").sort()).toEqual(
      [
        "--proxies",
        "--repetitions",
        "--duration",
        "--warmup",
        "--load",
        "--cpus",
        "--runtime",
        "--image-tag",
        "--proxies-dir",
        "--noise-limit",
        "--retries",
        "--dry-run",
        "--out",
      ].sort(),
    );
  });

  it("max-rate: the searches' flags, and its dry run", () => {
    expect(flagsOf("max-rate").sort()).toEqual(
      [
        "--proxies",
        "--scenarios",
        "--duration",
        "--warmup",
        "--max-p99",
        "--cpus",
        "--proxies-dir",
        "--scenarios-dir",
        "--dry-run",
        "--out",
      ].sort(),
    );
  });

  it("run: the wall-clock matrix, without the modes that are commands now", () => {
    const run = flagsOf("run");
    for (const flag of ["--variant", "--resume", "--shard", "--budget", "--tls", "--dry-run", "--runtime"])
      expect(run).toContain(flag);
    for (const flag of ["--measure", "--study", "--find-max-rate", "--max-p99"])
      expect(run).not.toContain(flag);
  });
});

describe("one spelling of each flag, typed the same by every command", () => {
  it("count: variants with their layout, a docker runtime and its tag", async () => {
    const flags = await parsedFlags([
      "count",
      "--variant",
      "base:pr-base=a",
      "--variant",
      "head=b",
      "--variant-proxies-dir",
      "bench/proxies",
      "--runtime",
      "docker",
      "--image-tag",
      "pr-12",
      "-r",
      "4",
    ]);
    const request = toRequest(flags);
    expect(request.repetitions).toBe(4);
    expect(request.runtime).toBe("docker");
    expect(request.imageTag).toBe("pr-12");
    expect(request.variants?.map((v) => v.name)).toEqual(["base", "head"]);
    expect(request.variants?.[0]?.proxiesDir).toMatch(/a\/bench\/proxies$/);
  });

  it("run: -r auto asks for the rounds a verdict needs", async () => {
    const request = toRequest(
      await parsedFlags(["run", "-r", "auto", "--variant", "a=.", "--variant", "b=."]),
    );
    expect(request.autoRounds).toBe(true);
    expect(request.repetitions).toBeUndefined();
  });

  it.each([
    [["--variant", "a=.", "--variant", "b=."], { autoRounds: true, budgetMinutes: 15 }],
    [
      ["--variant", "a=.", "--variant", "b=.", "-r", "auto", "--target", "8"],
      { autoRounds: true, targetPct: 8 },
    ],
    [["--variant", "a=.", "--variant", "b=.", "-r", "12"], { repetitions: 12 }],
    [["-p", "nginx"], {}],
    [["--resume", "results/x"], {}],
  ])(
    "run %j: the rounds asked for %j (a variant run without -r sizes them within 15 minutes)",
    async (words, rounds) => {
      const request = runRequest(await parsedFlags(["run", ...words]));
      const picked = {
        ...(request.autoRounds !== undefined ? { autoRounds: request.autoRounds } : {}),
        ...(request.budgetMinutes !== undefined ? { budgetMinutes: request.budgetMinutes } : {}),
        ...(request.targetPct !== undefined ? { targetPct: request.targetPct } : {}),
        ...(request.repetitions !== undefined ? { repetitions: request.repetitions } : {}),
      };
      expect(picked).toEqual(rounds);
    },
  );

  it("the same flag parses the same in two commands", async () => {
    const words = ["-p", "nginx,haproxy", "--cpus", "loadgen=0,proxy=1,upstream=1", "-o", "out"];
    const count = toRequest(await parsedFlags(["count", ...words]));
    const maxRate = toRequest(await parsedFlags(["max-rate", ...words]));
    expect(count).toEqual(maxRate);
    expect(count.proxies).toEqual(["nginx", "haproxy"]);
  });
});

/**
 * Flags whose --help line differs between commands on purpose: each does something of its own
 * there, said by the reason.
 */
const OWN_MEANING: Record<string, string> = {
  "--repetitions": "run also takes auto (with --variant): the rounds a verdict needs",
  "--duration": "max-rate measures the steps of a search, not repetitions",
  "--warmup": "max-rate warms up before each step of the search",
  "--study":
    "doctor checks what the study needs, images adds its coprocessors' images, shards keeps it on one runner",
  "--engine": "doctor checks the load generator that run and shards drive",
  "--proxies-dir":
    "images skips a folder that does not exist (the base checkout of a pull request that adds it)",
  "--format": "compare's html is for counted runs only",
  "--repo":
    "comment names the pull request's repository on GitHub (OWNER/NAME); publish pushes to any git repository (a path or a URL)",
  "--variant":
    "run and count take a variant to measure (NAME=DIR); publish picks the variant of a run whose cells it publishes (NAME)",
};

/** Every command's visible flags as its --help shows them (commander's own help API). */
function helpLines(): Array<{
  command: string;
  long: string;
  flags: string;
  description: string;
  help: string;
}> {
  return buildProgram().commands.flatMap((command) => {
    const help = command.createHelp();
    return help
      .visibleOptions(command)
      .filter((o) => o.long !== "--help")
      .map((o) => ({
        command: command.name(),
        long: o.long ?? o.flags,
        flags: o.flags,
        description: o.description,
        help: help.optionDescription(o),
      }));
  });
}

describe("--help agrees with itself across commands", () => {
  const lines = helpLines();

  it("a default is shown one way, `(default: X)` last, never in a description's own words", () => {
    for (const line of lines) {
      const where = `${line.command} ${line.flags}`;
      expect(line.description, where).not.toMatch(/\bdefault\b/i);
      // commander's own form quotes a string default: "markdown"
      const defaults = line.help.match(/default/g) ?? [];
      expect(defaults.length, where).toBeLessThanOrEqual(1);
      if (defaults.length === 1) expect(line.help, where).toMatch(/(\(|; )default: [^"][^()]*\)$/);
    }
  });

  it("one spelling, placeholder and description per flag name, unless it does something of its own", () => {
    const byFlag = new Map<string, typeof lines>();
    for (const line of lines) byFlag.set(line.long, [...(byFlag.get(line.long) ?? []), line]);
    const differing: string[] = [];
    for (const [flag, uses] of byFlag) {
      const spellings = new Set(uses.map((u) => u.flags));
      const descriptions = new Set(uses.map((u) => u.description));
      if (spellings.size === 1 && descriptions.size === 1) continue;
      differing.push(flag);
      if (OWN_MEANING[flag] === undefined) {
        expect.fail(
          `${flag} differs between commands:\n${uses.map((u) => `  ${u.command}: ${u.flags}  ${u.description}`).join("\n")}`,
        );
      }
    }
    // Each reason is still needed.
    expect(differing.sort()).toEqual(Object.keys(OWN_MEANING).sort());
  });

  it("the flags more than one command reads (run's results folder and report's file are not one flag)", () => {
    const outs = lines.filter((l) => l.long === "--out").map((l) => l.command);
    expect(outs.sort()).toEqual(["count", "max-rate", "run", "study"]);
    const files = lines.filter((l) => l.long === "--out-file").map((l) => l.command);
    expect(files.sort()).toEqual(["changes", "compare", "report"]);
    expect(
      lines
        .filter((l) => l.long === "--retries")
        .map((l) => l.command)
        .sort(),
    ).toEqual(["run", "study"]);
    expect(lines.filter((l) => l.long === "--json")).toEqual([]);
  });
});

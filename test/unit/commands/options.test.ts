import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import { buildProgram } from "../../../src/cli.js";
import { runRequest, toRequest, type MeasureFlags } from "../../../src/commands/options.js";

/** The long flags a command shows (its hidden ones are the modes that moved out of it). */
function flagsOf(name: string): string[] {
  const command = buildProgram().commands.find((c) => c.name() === name);
  if (!command) throw new Error(`no command ${name}`);
  return command.options.filter((o) => !o.hidden).map((o) => o.long ?? "");
}

/** The flags commander hands the command's action for these words. */
async function parsedFlags(words: string[]): Promise<MeasureFlags> {
  const program = buildProgram();
  let flags: MeasureFlags | undefined;
  for (const sub of program.commands) {
    sub.action((...args: unknown[]) => {
      flags = args.find((a): a is MeasureFlags => typeof a === "object" && !(a as Command).name) ?? {};
    });
  }
  await program.parseAsync(["node", "proxybench", ...words]);
  if (!flags) throw new Error("no command ran");
  return flags;
}

describe("each measuring command has the flags it reads, and no other", () => {
  it("count: what a counted run reads (variants and images too; no engine, lengths or loads)", () => {
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

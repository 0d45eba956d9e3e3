import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../../src/util/paths.js";
import { runCli } from "../../support/commands/cli.js";

/** A folder of scenarios of the user's: each a copy of the built-in passthrough with `edit` applied. */
async function scenarioCopy(root: string, name: string, edit: (script: string) => string): Promise<void> {
  const dir = path.join(root, name);
  await cp(path.join(PROJECT_ROOT, "scenarios", "passthrough"), dir, { recursive: true });
  const yml = path.join(dir, "scenario.yml");
  await writeFile(yml, (await readFile(yml, "utf8")).replace("name: passthrough", `name: ${name}`));
  await writeFile(path.join(dir, "script.js"), edit(await readFile(path.join(dir, "script.js"), "utf8")));
}

describe("run --dry-run refuses what the run would refuse", () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), "pb-dry-"));
    await scenarioCopy(root, "copied", (s) => s);
    await scenarioCopy(root, "broken", (s) => `import { helper } from "./helpers.js";\n${s}`);
    await mkdir(path.join(root, "used"));
    await cp(
      path.join(PROJECT_ROOT, "test/fixtures/actions/base/results.json"),
      path.join(root, "used", "results.json"),
    );
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it("an --out that already holds results", async () => {
    const out = path.join(root, "used");
    const { code, out: text } = await runCli(["run", "--dry-run", "--out", out]);
    expect(code).toBe(2);
    expect(text).toBe(
      `proxybench: --out ${out} already holds results; finish them with --resume ${out} or choose another --out\n`,
    );
  });

  it("a k6 script whose relative import does not resolve", async () => {
    const args = ["run", "--dry-run", "--scenarios-dir", root, "--scenarios", "broken", "-p", "direct"];
    const { code, out } = await runCli(args);
    expect(code).toBe(2);
    const script = path.join(root, "broken", "script.js");
    expect(out).toBe(
      `proxybench: ${script}: imports './helpers.js', which does not exist (${path.join(root, "broken", "helpers.js")}): create it or fix the import\n`,
    );
  });

  it("a copied built-in scenario plans (its library import resolves)", async () => {
    const args = ["run", "--dry-run", "--scenarios-dir", root, "--scenarios", "copied", "-p", "direct"];
    const { code, out } = await runCli(args);
    expect(code, out).toBe(0);
    expect(out).toContain("copied/default/direct/k6");
  });

  it("a typo in a load level, with its file and line", async () => {
    const yml = path.join(root, "copied", "scenario.yml");
    const text = await readFile(yml, "utf8");
    await writeFile(yml, text.replace("    rate: 1000", "    rat: 1000"));
    try {
      const { code, out } = await runCli(["run", "--dry-run", "--scenarios-dir", root, "-s", "copied"]);
      expect(code).toBe(2);
      const line = text.split("\n").findIndex((l) => l === "    rate: 1000") + 1;
      expect(out).toContain(`${yml}:${line}: loads[0].rat: Unrecognized key: "rat"`);
      expect(out).toContain(`loads[0].rate: model constant-arrival-rate needs 'rate'`);
    } finally {
      await writeFile(yml, text);
    }
  });
});

describe("study --dry-run and max-rate --dry-run say how long they take", () => {
  it("a study: its plan and estimated time", async () => {
    const { code, out } = await runCli(["study", "llrp", "--dry-run", "-r", "5", "-d", "30"]);
    expect(code, out).toBe(0);
    expect(out).toMatch(/^study llrp: /);
    expect(out).toMatch(/llrp-throughput-256c \(wrk, \d+s warm-up, 30s per repetition\)/);
    expect(out).toMatch(/\nestimated wall time: \d+m\d\ds\n/);
    // a study runs on one runner
    expect(out).not.toContain("--shard");
  });

  it("the extensibility study counts every option of every gateway", async () => {
    const { code, out } = await runCli(["study", "extensibility", "--dry-run", "-p", "nginx", "-d", "5"]);
    expect(code, out).toBe(0);
    expect(out).toMatch(/static-header-100rps \(vegeta, .*\): static-header\/100rps\/nginx\/vegeta\n/);
    expect(out).toMatch(/\nestimated wall time: \d+m\d\ds\n/);
  });

  it("a max-rate search: the searches and the most they take", async () => {
    const args = ["max-rate", "--dry-run", "-p", "direct", "-s", "passthrough,json-lookup"];
    const { code, out } = await runCli(args);
    expect(code, out).toBe(0);
    expect(out).toBe(
      "find-max-rate: 2 search(es) (direct x passthrough, json-lookup), each at most 14 steps of 5s\n" +
        "estimated wall time: at most 2m20s (4m40s if every step is measured again)\n",
    );
  });

  it("a max-rate search of a scenario k6 cannot send is refused without naming a flag max-rate lacks", async () => {
    const { code, out } = await runCli(["max-rate", "--dry-run", "-p", "haproxy", "-s", "passthrough-h2c"]);
    expect(code).toBe(2);
    expect(out).toContain(
      "max-rate: scenario 'passthrough-h2c' speaks h2c, which k6 does not (k6: http1, https, h2, grpc, grpcs); the search drives k6 only",
    );
    expect(out).not.toContain("--engine");
  });

  it("a max-rate search into a folder that holds one of its outcomes is refused, the outcome untouched", async () => {
    const used = await mkdtemp(path.join(tmpdir(), "pb-searched-"));
    await mkdir(path.join(used, "direct-passthrough"), { recursive: true });
    await writeFile(path.join(used, "direct-passthrough", "max-rate.json"), "{}\n");
    const { code, out } = await runCli(["max-rate", "--dry-run", "-p", "direct", "-o", used]);
    expect(code).toBe(2);
    expect(out).toContain(`--out ${used} already holds results; choose another --out`);
    expect(await readFile(path.join(used, "direct-passthrough", "max-rate.json"), "utf8")).toBe("{}\n");
    const other = await runCli(["max-rate", "--dry-run", "-p", "direct", "-s", "json-lookup", "-o", used]);
    expect(other.code, other.out).toBe(0);
    await rm(used, { recursive: true, force: true });
  });

  it("a max-rate search of an unknown proxy is refused as the search would", async () => {
    const { code, out } = await runCli(["max-rate", "--dry-run", "-p", "nope"]);
    expect(code).toBe(2);
    expect(out).toMatch(/--proxies: unknown 'nope' \(known: /);
  });
});

describe("count --dry-run: the counted run's plan, nothing started or written", () => {
  it("the proxies each block counts, the requests, and those skipped with the run's reasons", async () => {
    const out = path.join(await mkdtemp(path.join(tmpdir(), "pb-count-dry-")), "never");
    const args = ["count", "--dry-run", "-p", "nginx,direct,envoy", "-s", "passthrough,json-lookup"];
    const { code, out: text } = await runCli([
      ...args,
      "-r",
      "3",
      "--cpus",
      "loadgen=0,proxy=0,upstream=0",
      "-o",
      out,
    ]);
    expect(code, text).toBe(0);
    expect(text).toBe(
      "plan: 2 block(s), 2 cell(s), 3 repetition(s) each of 1000 requests after 200, over 2 connections; " +
        "counted under callgrind, natively; cores loadgen=0,proxy=0,upstream=0\n" +
        "  passthrough: nginx\n" +
        "  json-lookup: nginx\n" +
        "  skipped envoy: image only: count it in its image with --runtime docker\n" +
        "  skipped direct: no proxy process to count (direct goes straight to the upstream)\n",
    );
    expect(await readdir(path.dirname(out))).toEqual([]);
  });

  it("an --out that holds a counted run is refused as the run refuses it", async () => {
    const used = await mkdtemp(path.join(tmpdir(), "pb-counted-"));
    await writeFile(path.join(used, "instructions.json"), "{}\n");
    const { code, out } = await runCli(["count", "--dry-run", "-o", used]);
    expect(code).toBe(2);
    expect(out).toBe(`proxybench: --out ${used} already holds results; choose another folder\n`);
    await rm(used, { recursive: true, force: true });
  });
});

describe("each command has its own flags: one that does not apply is unknown there", () => {
  it.each([
    [["study", "llrp", "--shard", "1/2"], "--shard"],
    [["study", "llrp", "--resume", "x"], "--resume"],
    [["study", "llrp", "--engine", "wrk"], "--engine"],
    [["study", "llrp", "--scenarios", "passthrough"], "--scenarios"],
    [["study", "llrp", "--variant", "base=."], "--variant"],
    [["max-rate", "--resume", "x"], "--resume"],
    [["max-rate", "--load", "low"], "--load"],
    [["max-rate", "-r", "3"], "-r"],
    [["max-rate", "--shard", "1/2"], "--shard"],
    [["count", "--engine", "wrk"], "--engine"],
    [["count", "--round-order", "abba"], "--round-order"],
  ])("%j", async (words, flag) => {
    const { code, out } = await runCli(words);
    expect(code).toBe(2);
    expect(out).toContain(`error: unknown option '${flag}'`);
  });

  it("commander suggests the flag meant", async () => {
    const { code, out } = await runCli(["count", "--repetition", "3"]);
    expect(code).toBe(2);
    expect(out).toContain("error: unknown option '--repetition'\n(Did you mean --repetitions?)");
  });

  it("-r auto is the wall-clock matrix's alone", async () => {
    for (const command of [["count"], ["study", "llrp"]]) {
      const { code, out } = await runCli([...command, "-r", "auto", "--dry-run"]);
      expect(code).toBe(2);
      expect(out).toMatch(/argument 'auto' is invalid|unknown option '--dry-run'/);
    }
  });

  it("--dry-run and --resume cannot go together", async () => {
    const { code, out } = await runCli(["run", "--dry-run", "--resume", "x"]);
    expect(code).toBe(2);
    expect(out).toContain("error: option '--dry-run' cannot be used with option '--resume <dir>'");
  });
});

describe("bad input: exit 2 and one message naming the flag, file or field, before anything starts", () => {
  const BASE = "test/fixtures/actions/base";
  let root: string;
  let file: string;
  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), "pb-bad-"));
    file = path.join(root, "file.txt");
    await writeFile(file, "not a folder\n");
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it.each([
    [["run", "--dry-run", "-p", "direct", "-s", "passthrough"]],
    [["study", "ocelot", "--dry-run"]],
    [["study", "extensibility", "--dry-run", "-p", "nginx"]],
    [["max-rate", "--dry-run", "-p", "direct"]],
    // no dry run: refused before Valgrind is looked for, let alone started
    [["count", "-p", "nginx"]],
  ])("%j --out FILE, and --out FILE/SUB: a folder is needed", async (words) => {
    for (const [out, what] of [
      [file, "is a file"],
      [path.join(file, "sub"), `is inside ${file}, a file`],
    ]) {
      const { code, out: text } = await runCli([...words, "--out", out!]);
      expect(code, text).toBe(2);
      expect(text).toContain(`proxybench: --out ${out}: ${what}, not a folder; choose a folder\n`);
      expect(text).not.toContain("estimated wall time");
    }
  });

  it.each([
    [
      ["study", "ocelot", "-l", "1000c,5c", "--dry-run"],
      "--load: study ocelot has no load '5c' (its loads: 1000c)",
    ],
    [
      ["study", "ocelot", "-l", "5c", "--dry-run"],
      "--load: study ocelot has no load '5c' (its loads: 1000c)",
    ],
    [
      ["study", "ocelott", "--dry-run"],
      // the study is an argument here: no --study named
      "proxybench: study ocelott: unknown study (known: extensibility, grpc-gateway, llrp, ocelot, yarp-vs-httpclient)",
    ],
    [
      ["shards", "--runners", "1", "--study", "nosuch"],
      "--study nosuch: unknown study (known: extensibility, ",
    ],
    [
      ["run", "--dry-run", "-p", "direct", "--round-order", "abba", "--seed", "3"],
      "--seed goes with --round-order random",
    ],
    [
      ["run", "--dry-run", "-p", "direct", "--image-tag", "bad tag!"],
      "argument 'bad tag!' is invalid. 'bad tag!' is not an image tag",
    ],
    [
      ["publish", BASE, "--repo", "test/fixtures/actions"],
      "--repo test/fixtures/actions: not a git repository (give a bare repository's path, or a URL)",
    ],
    [
      ["publish", BASE, "--repo", "x.git", "--branch", "bad..name"],
      "--branch bad..name: not a valid branch name",
    ],
    [
      ["publish", BASE, "--repo", "x.git", "--repo-url", "github.com/o/r"],
      "--repo-url github.com/o/r: expected https://github.com/OWNER/NAME",
    ],
    [
      ["containers", "--docker", "/nonexistent/docker"],
      "--docker /nonexistent/docker: not found or not executable",
    ],
    [["compare", BASE], `${BASE}: this run holds no variants`],
    [
      ["comment", BASE, "--repo", "o/r", "--pr", "1", "--threshold", "x"],
      "--threshold: expected a percentage >= 0, got 'x'",
    ],
  ])("%j", async (words, message) => {
    const { code, out } = await runCli(words);
    expect(code, out).toBe(2);
    expect(out).toContain(message);
    expect(out).not.toContain("--debug");
  });

  it("comment --baseline-proxy: a proxy the run does not have is refused before anything is posted", async () => {
    const saved = { ...process.env };
    // a token, and an API nothing listens on: were the comment posted, the error would be the API's
    Object.assign(process.env, { GITHUB_TOKEN: "t", GITHUB_API_URL: "http://127.0.0.1:9" });
    delete process.env.GITHUB_STEP_SUMMARY;
    try {
      const words = ["comment", BASE, "--repo", "o/r", "--pr", "1", "--baseline-proxy", "ngnix"];
      const { code, out } = await runCli(words);
      expect(code, out).toBe(2);
      expect(out).toBe(
        "proxybench: --baseline-proxy: 'ngnix' is not a proxy of this run (its proxies: direct, nginx)\n",
      );
    } finally {
      process.env = saved;
    }
  });
});

describe("run's former modes name the command that took them over", () => {
  it.each([
    [["--measure", "instructions"], "'--measure': a counted run is its own command: proxybench count"],
    [["--study", "llrp"], "'--study': a named study is its own command: proxybench study NAME"],
    [["--find-max-rate"], "'--find-max-rate': the max-rate search is its own command: proxybench max-rate"],
    [["--max-p99", "20"], "'--max-p99': it bounds the max-rate search: proxybench max-rate --max-p99 MS"],
  ])("run %j", async (words, hint) => {
    const { code, out } = await runCli(["run", "--dry-run", "-p", "direct", ...words]);
    expect(code).toBe(2);
    expect(out).toContain(`error: unknown option ${hint}`);
    // nothing was planned
    expect(out).not.toContain("estimated wall time");
  });

  it("run --help does not list them", async () => {
    const { out } = await runCli(["run", "--help"]);
    expect(out).not.toMatch(/--measure|--study|--find-max-rate|--max-p99/);
  });
});

describe("--help", () => {
  it("run: -r's default, 21, and auto within a budget with --variant", async () => {
    const { out } = await runCli(["run", "--help"]);
    expect(out.replace(/\s+/g, " ")).toContain(
      "-r, --repetitions <n> repetitions per cell, or auto with --variant: the rounds a verdict needs (default: 21; with --variant, auto within a 15-minute budget)",
    );
  });

  it.each([
    ["count", "-o, --out <dir> results folder (default: results/<YYYYMMDD-HHMMSS>-instructions)"],
    ["compare", "--threshold <pct> smallest % change in wall-clock time that counts (default: 5)"],
    ["comment", "--threshold <pct> smallest % change in wall-clock time that counts (default: 5)"],
    ["report", "--format <format> output format (choices: markdown, html, json; default: markdown)"],
    ["doctor", "--format <format> output format (choices: text, json; default: text)"],
  ])("%s: %s", async (command, line) => {
    const { out } = await runCli([command, "--help"]);
    expect(out.replace(/\s+/g, " ")).toContain(line);
  });
});

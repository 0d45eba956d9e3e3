import { spawn } from "node:child_process";
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readResults } from "../../../src/results/io.js";
import { PROJECT_ROOT } from "../../../src/util/paths.js";
import {
  descendants,
  expectedExitCode,
  lightScenarioDir,
  measuredStatus,
  processesMentioning,
  stillRunning,
  type ProcInfo,
} from "../../support/runner/helpers.js";

// `proxybench` as a user types it: the built CLI in a child process.
const BIN = path.join(PROJECT_ROOT, "bin", "proxybench.js");
const cpus = os.cpus().length >= 2 ? "loadgen=0,proxy=1,upstream=1" : "loadgen=0,proxy=0,upstream=0";

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(
  args: string[],
  options: { cwd: string; onStderr?: (text: string, pid: number) => void } = { cwd: os.tmpdir() },
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
      if (child.pid !== undefined) options.onStderr?.(stderr, child.pid);
    });
    child.once("error", reject);
    child.once("close", (code, signal) => resolve({ code: code ?? (signal ? 128 : null), stdout, stderr }));
  });
}

describe("proxybench CLI", () => {
  let tmp: string;
  let scenarios: string;
  beforeAll(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), "pb-e2e-"));
    scenarios = await lightScenarioDir();
  }, 120_000);
  afterAll(async () => {
    await rm(tmp, { recursive: true, force: true });
    await rm(scenarios, { recursive: true, force: true });
  });

  it("run: prints the layout, the table and the results path; results.json validates", async () => {
    const out = path.join(tmp, "run");
    const r = await cli(
      [
        "run",
        "--proxies",
        "direct,nginx,envoy",
        "--scenarios",
        "light",
        "--scenarios-dir",
        scenarios,
        "--duration",
        "1",
        "--warmup",
        "0.5",
        "--repetitions",
        "2",
        "--cpus",
        cpus,
        "--out",
        out,
      ],
      { cwd: tmp },
    );
    expect(r.stderr).toContain(`cpus: ${cpus} (from --cpus)`);
    expect(r.stderr).toContain("skipped envoy: image only: run it with --runtime docker");
    expect(r.stdout).toMatch(/\| *Requests\/sec/);
    expect(r.stdout.trimEnd().split("\n").at(-1)).toBe(`results: ${path.join(out, "results.json")}`);
    const results = await readResults(out);
    expect(results.cells.map((c) => [c.proxy, measuredStatus(c), c.repetitions.length])).toEqual([
      ["direct", "measured", 2],
      ["nginx", "measured", 2],
    ]);
    expect(r.code).toBe(expectedExitCode(results.cells));
    expect(results.skipped).toEqual([{ proxy: "envoy", reason: "image only: run it with --runtime docker" }]);
    expect(results.settings).toMatchObject({
      proxies: ["direct", "nginx", "envoy"],
      repetitions: 2,
      durationS: 1,
    });
    expect(processesMentioning(out)).toEqual([]);

    // Measured results are never overwritten by a new run.
    const again = await cli(["run", "--proxies", "direct", "--out", out], { cwd: tmp });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`--out ${out} already holds results; finish them with --resume`);
    expect((await readResults(out)).runId).toBe(results.runId);
  });

  it("a copy of a built-in scenario in a folder of the user's runs (the scenario library resolved)", async () => {
    const mine = path.join(tmp, "my-scenarios");
    await cp(path.join(PROJECT_ROOT, "scenarios", "passthrough"), path.join(mine, "my-passthrough"), {
      recursive: true,
    });
    const yml = path.join(mine, "my-passthrough", "scenario.yml");
    await writeFile(yml, (await readFile(yml, "utf8")).replace("name: passthrough", "name: my-passthrough"));
    const out = path.join(tmp, "copied");
    const r = await cli(
      [
        "run",
        ...["--proxies", "direct", "--scenarios", "my-passthrough", "--scenarios-dir", mine],
        ...["--duration", "1", "--warmup", "0.5", "--repetitions", "1", "--cpus", cpus, "--out", out],
      ],
      { cwd: tmp },
    );
    const results = await readResults(out);
    expect(results.cells.map((c) => [c.scenario, measuredStatus(c), c.repetitions.length])).toEqual([
      ["my-passthrough", "measured", 1],
    ]);
    expect(r.code).toBe(expectedExitCode(results.cells));
  });

  it("an unknown proxy is a usage error listing the known ones", async () => {
    const r = await cli(["run", "--proxies", "nginx,traefik", "--out", path.join(tmp, "unknown")], {
      cwd: tmp,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--proxies: unknown 'traefik' \(known: .*direct.*haproxy.*nginx/);
  });

  it.each([
    [["--repetitions", "0"], /--repetitions.*'0' is not a positive whole number/],
    [["--cpus", "loadgen=0,proxy=9,upstream=0"], /--cpus: proxy: core 9 does not exist/],
    [["--engine", "jmeter"], /--engine.*jmeter/],
  ])("bad flag %j exits 2 naming the flag", async (args, error) => {
    const r = await cli(["run", ...args, "--out", path.join(tmp, "bad")], { cwd: tmp });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(error);
  });

  it("Ctrl-C: exit 130, finished cells kept, nothing left running; --resume finishes the matrix", async () => {
    const out = path.join(tmp, "interrupted");
    let snapshot: ProcInfo[] = [];
    let sent = false;
    const args = [
      "run",
      "--proxies",
      "direct,nginx,haproxy",
      "--scenarios",
      "light",
      "--scenarios-dir",
      scenarios,
      "--duration",
      "1",
      "--warmup",
      "0",
      "--repetitions",
      "2",
      "--cpus",
      cpus,
      // about interrupting, not noise: no repetition measured again on a busy machine
      "--retries",
      "0",
      // a known order, so that the signal comes when haproxy is done and nginx is not
      "--round-order",
      "abba",
    ];
    const first = await cli([...args, "--out", out], {
      cwd: tmp,
      onStderr: (text, pid) => {
        // Rounds run A B C, then C B A: haproxy has finished both repetitions; nginx's second runs.
        if (!sent && /light-default nginx {2}rep 2\/2/.test(text)) {
          sent = true;
          setTimeout(() => {
            snapshot = descendants(pid);
            process.kill(pid, "SIGINT");
          }, 500);
        }
      },
    });
    expect(sent).toBe(true);
    expect(first.code).toBe(130);
    expect(first.stderr).toMatch(/interrupted: 1 finished cell\(s\) kept .*proxybench run --resume/s);
    expect(snapshot.length).toBeGreaterThan(0); // the upstream, nginx, haproxy, k6 were running
    expect(await stillRunning(snapshot)).toEqual([]);
    expect(processesMentioning(out)).toEqual([]);
    const partial = await readResults(out);
    expect(partial.cells.map((c) => c.proxy)).toEqual(["haproxy"]);
    expect(partial.finishedAt).toBeUndefined();

    const conflict = await cli(["run", "--resume", out, "--repetitions", "5"], { cwd: tmp });
    expect(conflict.code).toBe(2);
    expect(conflict.stderr).toContain("--repetitions 5 differs from the recorded 2");

    const resumed = await cli(["run", "--resume", out], { cwd: tmp });
    expect(resumed.stderr).toContain("resuming: 1 finished cell(s) kept, 2 to run");
    const full = await readResults(out);
    expect(full.cells.map((c) => [c.proxy, measuredStatus(c), c.repetitions.length])).toEqual([
      ["direct", "measured", 2],
      ["nginx", "measured", 2],
      ["haproxy", "measured", 2],
    ]);
    expect(resumed.code).toBe(expectedExitCode(full.cells));
    // the kept cell (haproxy, last in plan order) was not measured again
    expect(full.cells[2]?.startedAt).toBe(partial.cells[0]?.startedAt);
    expect(full.finishedAt).toBeDefined();
  });

  it("list shows what can run here, as text and JSON", async () => {
    const text = await cli(["list"], { cwd: tmp });
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/nginx +native: nginx \d+\.\d+/);
    expect(text.stdout).toMatch(/direct +native: no proxy/);
    const json = await cli(["list", "--format", "json"], { cwd: tmp });
    const parsed = JSON.parse(json.stdout) as {
      proxies: Array<{ name: string; native: string }>;
      scenarios: Array<{ name: string }>;
    };
    expect(parsed.proxies.find((p) => p.name === "haproxy")?.native).toMatch(/^native: haproxy \d/);
    expect(parsed.scenarios.map((s) => s.name)).toContain("passthrough");
  });

  it("doctor prints every check and exits 1 exactly when something needed is missing", async () => {
    const r = await cli(["doctor"], { cwd: tmp });
    for (const name of [
      "k6",
      "nginx",
      "haproxy",
      "taskset",
      "cores",
      "governor",
      "ulimit -n",
      "load average",
      "upstream",
    ]) {
      expect(r.stdout).toContain(name);
    }
    expect(r.code).toBe(r.stdout.includes("FAIL") ? 1 : 0);
  });
});

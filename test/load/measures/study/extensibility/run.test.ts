import { cp, mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { parse, stringify } from "yaml";
import { describe, expect, it } from "vitest";
import * as engines from "../../../../../src/engines/index.js";
import type { EngineApi } from "../../../../../src/measures/wall-clock/context.js";
import type { ExtensibilityOutcome } from "../../../../../src/measures/study/extensibility/run.js";
import { runStudy as runAnyStudy } from "../../../../../src/measures/study/study.js";
import { readResults } from "../../../../../src/results/io.js";
import { PROJECT_ROOT } from "../../../../../src/util/paths.js";
import { liveProcesses } from "../../../../../src/util/processes.js";

// The extensibility study end to end at short durations: the real upstream, NGINX with its
// config, njs and auth_request variants, real coprocessors, vegeta at 100 requests/s
// for one second a row.

const studyEngines: EngineApi = engines;

function sink() {
  let text = "";
  return { write: (s: string) => ((text += s), true), text: () => text };
}

/** A coprocessor that answers like the others, then dies: the crash mid-run (the warm-up's 25
 * requests and the checks before it come first). */
const CRASHING = `import { createServer } from "node:http";
let stages = 0;
const server = createServer((req, res) => {
  if (req.url === "/health") return res.writeHead(200).end("ok\\n");
  let body = "";
  req.on("data", (c) => (body += c));
  req.on("end", () => {
    if (++stages > 60) {
      console.error("simulated crash after 60 stage requests");
      process.exit(3);
    }
    const payload = JSON.parse(body);
    payload.headers = { ...payload.headers, source: ["crash"] };
    res.writeHead(200, { "content-type": "application/json", "x-coprocessor-header-source": "crash" });
    res.end(JSON.stringify(payload));
  });
});
const [host, port] = process.argv[process.argv.indexOf("--listen") + 1].split(":");
server.listen(Number(port), host);
`;

/** A copy of the study with one test (static-header unless told) and the given coprocessors. */
async function studyCopy(root: string, coprocessors: string[], test = "static-header"): Promise<string> {
  const studies = path.join(root, "studies");
  await cp(path.join(PROJECT_ROOT, "studies", "extensibility"), path.join(studies, "extensibility"), {
    recursive: true,
  });
  const file = path.join(studies, "extensibility", "study.yml");
  const study = parse(await readFile(file, "utf8")) as Record<string, unknown> & {
    extensibility: Record<string, unknown>;
  };
  study.scenarios = [test];
  study.extensibility.coprocessors = coprocessors;
  await writeFile(file, stringify(study));
  return studies;
}

/** The crashing coprocessor as coprocessors/crash in `root`. */
async function crashingCoprocessor(root: string): Promise<string> {
  const coprocessorsDir = path.join(root, "coprocessors");
  await mkdir(path.join(coprocessorsDir, "crash"), { recursive: true });
  await writeFile(path.join(coprocessorsDir, "crash", "server.js"), CRASHING);
  await writeFile(
    path.join(coprocessorsDir, "crash", "coprocessor.yml"),
    stringify({
      name: "crash",
      description: "dies after 60 stage requests",
      native: { binary: "node", args: ["{{dir}}/server.js", "--listen", "127.0.0.1:{{sidecarPort}}"] },
    }),
  );
  return coprocessorsDir;
}

async function runStudy(
  root: string,
  deps: { studiesDir: string; coprocessorsDir?: string },
  proxiesDirs: string[] = [],
  proxies?: string[],
): Promise<{ outcome: ExtensibilityOutcome; stdout: string }> {
  const stdout = sink();
  const outcome = (await runAnyStudy(
    "extensibility",
    {
      repetitions: 1,
      warmupS: 0.25,
      durationS: 1,
      retries: 0,
      out: path.join(root, "out"),
      proxiesDirs,
      ...(proxies ? { proxies } : {}),
    },
    { engines: studyEngines, stdout, stderr: sink(), handleSignals: false, ...deps },
  )) as ExtensibilityOutcome;
  return { outcome, stdout: stdout.text() };
}

const MEASURED = ["ok", "noisy", "loadgen-bound"];

function row(md: string, label: string): string {
  const line = md.split("\n").find((l) => l.startsWith(`| ${label} `));
  if (!line) throw new Error(`no row '${label}' in:\n${md}`);
  return line;
}

describe("extensibility study, static header on NGINX", () => {
  it("config, njs and coprocessor rows measured; a coprocessor that dies mid-run is invalid with its log", async () => {
    const root = await mkdtemp(path.join(tmpdir(), "proxybench-ext-"));
    const coprocessorsDir = path.join(root, "coprocessors");
    for (const name of ["go", "node", "python"]) {
      await cp(path.join(PROJECT_ROOT, "coprocessors", name), path.join(coprocessorsDir, name), {
        recursive: true,
      });
    }
    await crashingCoprocessor(root);
    const studiesDir = await studyCopy(root, ["go", "node", "python", "crash"]);
    const { outcome, stdout } = await runStudy(root, { studiesDir, coprocessorsDir });
    expect(outcome.runs.map((r) => r.gateway)).toEqual(["nginx", "haproxy"]);
    const saved = await readResults(outcome.runs[0]?.dir ?? "");
    expect(saved.settings.study).toBe("extensibility");
    expect(saved.environment.limits).toEqual({
      gateway: { cores: [1], memoryBytes: 1073741824, how: "taskset; prlimit --data (RLIMIT_DATA)" },
      coprocessor: { cores: [0], memoryBytes: 1073741824, how: "taskset; prlimit --data (RLIMIT_DATA)" },
    });
    for (const run of outcome.runs) {
      const cells = run.results?.cells ?? [];
      const status: Record<string, string> = Object.fromEntries(
        cells.map((c) => [c.variant ?? "", c.status] as const),
      );
      expect(status.crash, run.gateway).toBe("invalid");
      // Every other row measured: ok, or noisy or loadgen-bound when this shared machine's other
      // tenants take the pinned cores (the statuses that say so), never invalid or failed.
      for (const option of ["baseline", "config", "script", "go", "node", "python"]) {
        expect(MEASURED, `${run.gateway} ${option}`).toContain(status[option]);
      }
      const crash = cells.find((c) => c.variant === "crash");
      expect(crash?.reasons.join(" ")).toMatch(
        /sidecar coprocessor-crash exited during repetition 1 \(exit code 3\); log: .*simulated crash/,
      );
    }
    expect(outcome.runs[1]?.options).toContain("script"); // HAProxy's Lua needs nothing more
    // The ok rows: numbers with their delta against the baseline; the crash row: its status only.
    const md = outcome.markdown;
    expect(stdout).toContain(md);
    expect(row(md, "Type")).toMatch(/Min \(ms\).*Mean \(ms\).*p50.*p90.*p95.*p99.*Max \(ms\)/);
    const nginx = outcome.runs[0]?.results?.cells ?? [];
    const shown = (option: string) => nginx.find((c) => c.variant === option)?.status;
    for (const option of ["baseline", "config", "node"]) {
      const status = shown(option);
      if (status === "ok") expect(row(md, option)).toMatch(/\| +\d+\.\d+(<br>\((~ )?[+-]?\d+\.\d+\))? +\|/);
      else if (status === "noisy") expect(row(md, option)).not.toMatch(/\d\.\d/);
    }
    expect(row(md, "crash")).not.toMatch(/\d\.\d/);
    expect(row(md, "crash")).toContain("invalid");
    expect(liveProcesses()).toEqual([]);
  }, 300_000);

  it("a config variant that skips the work is invalid, never fast", async () => {
    const root = await mkdtemp(path.join(tmpdir(), "proxybench-ext-lazy-"));
    const proxies = path.join(root, "proxies");
    await cp(path.join(PROJECT_ROOT, "proxies", "nginx"), path.join(proxies, "nginx"), { recursive: true });
    // The config extension that sets no header: the upstream never sees `source: config`.
    await writeFile(
      path.join(proxies, "nginx", "extensibility", "config-static-header.location.conf"),
      "# sets nothing\n",
    );
    const studiesDir = await studyCopy(root, ["node"]);
    const { outcome } = await runStudy(root, { studiesDir }, [proxies], ["nginx"]);
    const cells = outcome.runs[0]?.results?.cells ?? [];
    const config = cells.find((c) => c.variant === "config");
    expect(config?.status).toBe("invalid");
    expect(config?.reasons.join(" ")).toContain('upstream saw source: nothing (expected "config")');
    expect(MEASURED).toContain(cells.find((c) => c.variant === "node")?.status);
    expect(row(outcome.markdown, "config")).not.toMatch(/\d\.\d/);
    expect(outcome.exitCode).toBe(1);
  }, 120_000);
});

describe("extensibility study, GraphQL on Hive Gateway", () => {
  it("a configuration that skips the work and a coprocessor that dies are invalid; the baseline is measured", async () => {
    const root = await mkdtemp(path.join(tmpdir(), "proxybench-ext-graphql-"));
    const proxies = path.join(root, "proxies");
    const hive = path.join(proxies, "hive-gateway");
    await cp(path.join(PROJECT_ROOT, "proxies", "hive-gateway"), hive, { recursive: true });
    // The configuration that sets no header: the subgraph never sees `source: config`.
    await writeFile(
      path.join(hive, "extensibility", "config-static-header.mjs"),
      "export const extension = {};\n",
    );
    // Three rows (baseline, config, crash) keep the run short: the plugin row goes.
    const manifest = parse(await readFile(path.join(hive, "proxy.yml"), "utf8")) as {
      extensions: Record<string, unknown>;
    };
    delete manifest.extensions.script;
    await writeFile(path.join(hive, "proxy.yml"), stringify(manifest));
    const coprocessorsDir = await crashingCoprocessor(root);
    const studiesDir = await studyCopy(root, ["crash"], "graphql-static-header");
    const { outcome } = await runStudy(root, { studiesDir, coprocessorsDir }, [proxies], ["hive-gateway"]);
    expect(outcome.runs.map((r) => `${r.test} ${r.gateway}`)).toEqual(["graphql-static-header hive-gateway"]);
    const cells = outcome.runs[0]?.results?.cells ?? [];
    const cell = (option: string) => cells.find((c) => c.variant === option);
    expect(MEASURED).toContain(cell("baseline")?.status);
    expect(cell("config")?.status).toBe("invalid");
    expect(cell("config")?.reasons.join(" ")).toContain(
      'upstream saw data.source: nothing (expected "config")',
    );
    expect(cell("crash")?.status).toBe("invalid");
    expect(cell("crash")?.reasons.join(" ")).toMatch(
      /sidecar coprocessor-crash exited during repetition 1 \(exit code 3\); log: .*simulated crash/,
    );
    expect(row(outcome.markdown, "config")).not.toMatch(/\d\.\d/);
    expect(row(outcome.markdown, "script")).toContain("skipped");
    expect(outcome.exitCode).toBe(1);
    expect(liveProcesses()).toEqual([]);
  }, 120_000);
});

import { existsSync, statSync } from "node:fs";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as engines from "../../../../src/engines/index.js";
import { readResults } from "../../../../src/results/io.js";
import { runBenchmark } from "../../../../src/measures/wall-clock/run.js";
import { liveProcesses } from "../../../../src/util/processes.js";
import {
  collectText,
  descendants,
  expectedExitCode,
  lightScenarioDir,
  measuredStatus,
  processesMentioning,
  processGroupMembers,
} from "../../../support/runner/helpers.js";

// Real upstream, nginx, haproxy and k6, through the runner, a few seconds each.
const cpus = os.cpus().length >= 2 ? "loadgen=0,proxy=1,upstream=1" : "loadgen=0,proxy=0,upstream=0";

describe("runner with real proxies", () => {
  let scenarios: string;
  let tmp: string;
  beforeAll(async () => {
    scenarios = await lightScenarioDir();
    tmp = await mkdtemp(path.join(os.tmpdir(), "pb-run-"));
  });
  afterAll(async () => {
    await rm(scenarios, { recursive: true, force: true });
    await rm(tmp, { recursive: true, force: true });
  });

  it("direct, nginx and haproxy: ok cells, interleaved repetitions, files on disk, nothing left running", async () => {
    const out = path.join(tmp, "full");
    const stderr = collectText();
    const stdout = collectText();
    const outcome = await runBenchmark(
      {
        proxies: ["direct", "nginx", "haproxy"],
        scenarios: ["light"],
        scenariosDirs: [scenarios],
        repetitions: 2,
        durationS: 1,
        warmupS: 0.5,
        cpus,
        out,
      },
      { engines, stderr, stdout, handleSignals: false, renderReport: () => "TABLE" },
    );
    const results = await readResults(out);
    expect(results.cells.map((c) => `${c.id} ${measuredStatus(c)}`)).toEqual([
      "light/default/direct/k6 measured",
      "light/default/nginx/k6 measured",
      "light/default/haproxy/k6 measured",
    ]);
    expect(outcome.exitCode).toBe(expectedExitCode(results.cells));
    expect(results.finishedAt).toBeDefined();
    expect(results.environment.proxies.nginx).toMatch(/^\d/);
    expect(results.environment.proxies.haproxy).toMatch(/^\d/);
    for (const c of results.cells) {
      expect(c.repetitions).toHaveLength(2);
      for (const r of c.repetitions) {
        expect(r.rps).toBeGreaterThan(0);
        expect(r.statusCodes["200"]).toBe(r.requests);
        for (const raw of r.raw) expect(existsSync(path.join(out, raw))).toBe(true);
      }
      for (const log of c.logs) expect(existsSync(path.join(out, log))).toBe(true);
    }
    expect(results.cells[1]?.proxyVersion).toMatch(/^1\.\d+/);
    expect(results.cells[1]?.tuning).toMatchObject({ upstreamKeepalive: 256, accessLog: false, cores: 1 });
    // Interleaved: every first repetition started before any second one.
    const firsts = results.cells.map((c) => Date.parse(c.repetitions[0]!.startedAt));
    const seconds = results.cells.map((c) => Date.parse(c.repetitions[1]!.startedAt));
    expect(Math.max(...firsts)).toBeLessThan(Math.min(...seconds));
    expect(stderr.text()).toMatch(/cpus: loadgen=/);
    expect(stdout.text()).toContain("TABLE");
    expect(stdout.text()).toContain(`results: ${path.join(out, "results.json")}`);
    expect(liveProcesses()).toEqual([]);
    expect(descendants(process.pid)).toEqual([]);
    expect(processesMentioning(out)).toEqual([]);
  });

  it.each([
    ["round", 3, 4],
    ["block", 1, 1],
  ] as const)(
    "--proxy-lifetime %s: the rounds are measured by %i nginx process(es), after %i warm-up(s)",
    async (lifetime, processes, warmupCount) => {
      const out = path.join(tmp, `lifetime-${lifetime}`);
      const masters = new Map<number, Set<number>>(); // round -> nginx masters seen at its start
      const outcome = await runBenchmark(
        {
          proxies: ["nginx"],
          scenarios: ["light"],
          scenariosDirs: [scenarios],
          repetitions: 3,
          durationS: 0.5,
          warmupS: 0.5,
          cpus,
          out,
          proxyLifetime: lifetime,
          noiseLimit: 2, // about processes, not the machine's quiet: no re-measured attempts
        },
        {
          engines,
          stderr: collectText(),
          stdout: collectText(),
          handleSignals: false,
          // nginx's master: the one of the cell's nginx processes whose parent is not nginx
          onMeasure: ({ phase, round }) => {
            if (phase !== "start") return;
            const nginx = processesMentioning(out).filter((p) => p.cmd.startsWith("nginx"));
            const pids = new Set(nginx.map((p) => p.pid));
            const seen = masters.get(round) ?? new Set();
            for (const p of nginx) if (!pids.has(p.ppid)) seen.add(p.pid);
            masters.set(round, seen);
          },
        },
      );
      const results = await readResults(out);
      expect(results.settings.proxyLifetime).toBe(lifetime);
      expect([...masters.keys()]).toEqual([0, 1, 2]);
      for (const seen of masters.values()) expect(seen.size).toBe(1);
      expect(new Set([...masters.values()].flatMap((s) => [...s])).size).toBe(processes);
      // the block's warm-up; with round, then one for each round's process, the first round's too
      const raw = await readdir(path.join(out, "raw"));
      const warmups = new Set(raw.filter((f) => f.includes("-warmup")).map((f) => f.split(".")[0]));
      expect(warmups.size).toBe(warmupCount);
      // each measured process was warmed up just before its repetition: nothing ran in between
      const written = raw
        .filter((f) => f.endsWith(".k6.json"))
        .sort(
          (x, y) => statSync(path.join(out, "raw", x)).mtimeMs - statSync(path.join(out, "raw", y)).mtimeMs,
        );
      const rounds = lifetime === "round" ? [1, 2, 3] : [1];
      for (const n of rounds) {
        const at = written.findIndex((f) => f.endsWith(`-k6-rep${n}.k6.json`));
        expect(written[at - 1]).toMatch(
          lifetime === "round" ? `-warmup-rep${n}.k6.json` : /-warmup\.k6\.json$/,
        );
      }
      expect(results.cells[0]!.repetitions.map((r) => r.round)).toEqual([0, 1, 2]);
      expect(outcome.exitCode).toBe(expectedExitCode(results.cells));
      expect(processesMentioning(out)).toEqual([]);
    },
  );

  it("a proxy that does not come up is a failed cell with its log tail; the others run", async () => {
    const proxies = path.join(tmp, "proxies");
    await mkdir(path.join(proxies, "broken"), { recursive: true });
    await writeFile(
      path.join(proxies, "broken", "proxy.yml"),
      [
        "name: broken",
        "description: nginx with a config it refuses.",
        "native:",
        "  binary: nginx",
        '  args: ["-p", "{{workdir}}", "-c", "{{workdir}}/nginx.conf", "-e", "stderr"]',
        "  configs: [{ template: nginx.conf, output: nginx.conf }]",
        "  version: { args: [-v], pattern: 'nginx/([0-9.]+)' }",
        "ready: { timeoutS: 5 }",
        "",
      ].join("\n"),
    );
    await writeFile(
      path.join(proxies, "broken", "nginx.conf"),
      "daemon off;\npid {{workdir}}/nginx.pid;\nerror_log stderr;\nevents {}\nhttp { no_such_directive on; }\n",
    );
    const out = path.join(tmp, "broken");
    const outcome = await runBenchmark(
      {
        proxies: ["broken", "direct"],
        scenarios: ["light"],
        scenariosDirs: [scenarios],
        proxiesDirs: [proxies],
        repetitions: 1,
        durationS: 1,
        warmupS: 0,
        cpus,
        out,
      },
      { engines, stderr: collectText(), stdout: collectText(), handleSignals: false },
    );
    const results = await readResults(out);
    const [broken, direct] = results.cells;
    expect(broken?.status).toBe("failed");
    expect(broken?.reasons.join("\n")).toMatch(/broken did not come up: exited before it was ready/);
    expect(broken?.reasons.join("\n")).toMatch(/unknown directive "no_such_directive"/);
    expect(broken?.repetitions).toEqual([]);
    expect(measuredStatus(direct!)).toBe("measured");
    expect(direct?.repetitions).toHaveLength(1);
    expect(outcome.exitCode).toBe(1);
    expect(descendants(process.pid)).toEqual([]);
  });

  it("a proxy that answers 404 is an invalid cell with the status codes seen, and no load is run", async () => {
    const proxies = path.join(tmp, "proxies404");
    await mkdir(path.join(proxies, "notfound"), { recursive: true });
    await writeFile(
      path.join(proxies, "notfound", "proxy.yml"),
      [
        "name: notfound",
        "description: nginx that is up but answers 404 to every request but its health check.",
        "native:",
        "  binary: nginx",
        '  args: ["-p", "{{workdir}}", "-c", "{{workdir}}/nginx.conf", "-e", "stderr"]',
        "  configs: [{ template: nginx.conf, output: nginx.conf }]",
        "  version: { args: [-v], pattern: 'nginx/([0-9.]+)' }",
        "",
      ].join("\n"),
    );
    await writeFile(
      path.join(proxies, "notfound", "nginx.conf"),
      [
        "daemon off;",
        "pid {{workdir}}/nginx.pid;",
        "error_log stderr;",
        "events {}",
        "http {",
        "  access_log off;",
        "  client_body_temp_path {{workdir}}/body; proxy_temp_path {{workdir}}/proxy;",
        "  fastcgi_temp_path {{workdir}}/fcgi; uwsgi_temp_path {{workdir}}/uwsgi; scgi_temp_path {{workdir}}/scgi;",
        "  server {",
        "    listen {{listenHost}}:{{listenPort}};",
        "    location = /health { return 200 ok; }",
        "    location / { return 404; }",
        "  }",
        "}",
        "",
      ].join("\n"),
    );
    const out = path.join(tmp, "notfound");
    await runBenchmark(
      {
        proxies: ["notfound"],
        scenarios: ["light"],
        scenariosDirs: [scenarios],
        proxiesDirs: [proxies],
        repetitions: 2,
        durationS: 1,
        warmupS: 1,
        cpus,
        out,
      },
      { engines, stderr: collectText(), stdout: collectText(), handleSignals: false },
    );
    const [cell] = (await readResults(out)).cells;
    expect(cell?.status).toBe("invalid");
    expect(cell?.reasons.join("\n")).toMatch(/404/);
    expect(cell?.repetitions).toEqual([]);
    expect(existsSync(path.join(out, "raw", "light-default-notfound-warmup.k6.json"))).toBe(false);
  });

  it("a proxy killed mid-run gives a failed cell; the other cell's results stay on disk", async () => {
    const out = path.join(tmp, "killed");
    let killed: number | undefined;
    const stderr = {
      write(text: string): boolean {
        // The second repetition of nginx just started: kill nginx's master process.
        if (killed === undefined && /light-default nginx {2}rep 2\/3/.test(text)) {
          const master = processesMentioning(path.join(out, "work", "light-default-nginx")).find((p) =>
            p.cmd.includes("master process"),
          );
          if (master) {
            killed = master.pid;
            process.kill(master.pid, "SIGKILL");
          }
        }
        return true;
      },
    };
    const outcome = await runBenchmark(
      {
        proxies: ["nginx", "haproxy"],
        scenarios: ["light"],
        scenariosDirs: [scenarios],
        repetitions: 3,
        durationS: 1,
        warmupS: 0,
        cpus,
        out,
      },
      { engines, stderr, stdout: collectText(), handleSignals: false },
    );
    expect(killed).toBeDefined();
    const results = await readResults(out);
    const [nginx, haproxy] = results.cells;
    expect(nginx?.status).toBe("failed");
    expect(nginx?.reasons.join("\n")).toMatch(/nginx exited during repetition 2 \(signal SIGKILL\)/);
    expect(nginx?.repetitions).toHaveLength(2); // the third was not run
    expect(nginx?.finishedAt).toBeDefined();
    expect(measuredStatus(haproxy!)).toBe("measured");
    expect(haproxy?.repetitions).toHaveLength(3);
    expect(outcome.exitCode).toBe(1);
    // The orphaned nginx workers were stopped with their group (their command line is only
    // "nginx: worker process": look them up by the killed master's process group).
    expect(processesMentioning(out)).toEqual([]);
    expect(processGroupMembers(killed!)).toEqual([]);
    expect(descendants(process.pid)).toEqual([]);
  });
});

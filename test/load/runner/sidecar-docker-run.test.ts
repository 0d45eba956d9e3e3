import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { stringify } from "yaml";
import { describe, expect, it } from "vitest";
import * as engines from "../../../src/engines/index.js";
import { DockerRuntime } from "../../../src/runner/docker-runtime.js";
import { runBenchmark } from "../../../src/measures/wall-clock/run.js";
import { PROJECT_ROOT } from "../../../src/util/paths.js";
import { liveProcesses } from "../../../src/util/processes.js";
import { collectText, lightScenarioDir } from "../../support/runner/helpers.js";

// A run under --runtime docker whose proxy has a coprocessor sidecar from an image, with the
// docker stand-in running each image as a real program: a gateway that asks its coprocessor
// before every request it forwards, and a coprocessor that dies after 60 of them, during the
// first repetition. Its death makes that repetition invalid, with the end of its log.

const FAKE_DOCKER = path.join(PROJECT_ROOT, "test", "support", "actions", "fake-docker.sh");

/** The gateway: POSTs to its coprocessor, then forwards the request to the upstream. */
const GATEWAY = `import http from "node:http";
const [listen, upstream, sidecar] = process.argv.slice(2).map(Number);
http.createServer((req, res) => {
  const ask = http.request({ port: sidecar, method: "POST", path: "/static-subgraph" }, (a) => {
    a.resume();
    const fwd = http.request({ port: upstream, path: req.url, headers: req.headers }, (u) => {
      res.writeHead(u.statusCode, u.headers);
      u.pipe(res);
    });
    fwd.on("error", () => res.writeHead(502).end());
    fwd.end();
  });
  ask.on("error", () => res.writeHead(502).end("coprocessor gone"));
  ask.end("{}");
}).listen(listen, "127.0.0.1");
`;

/** The coprocessor: answers, then dies after 60 stage requests, recording its exit code as docker would. */
const DYING = `import http from "node:http";
import { writeFileSync } from "node:fs";
let stages = 0;
const [host, port] = process.argv[process.argv.indexOf("--listen") + 1].split(":");
http.createServer((req, res) => {
  if (req.url === "/health") return res.writeHead(200).end("ok\\n");
  if (++stages > 60) {
    console.error("simulated crash after 60 stage requests");
    writeFileSync(process.env.FAKE_DOCKER_STATE + "/" + process.env.FAKE_DOCKER_CONTAINER + ".exit", "3");
    process.exit(3);
  }
  req.resume();
  req.on("end", () => res.writeHead(200).end("{}"));
}).listen(Number(port), host);
`;

/** An image of the stand-in: `program` run by node with the container's args. */
async function image(dir: string, ref: string, program: string): Promise<void> {
  const script = path.join(dir, `${ref.replaceAll("/", "_").replaceAll(":", "_")}.mjs`);
  await writeFile(script, program);
  const entry = script.slice(0, -".mjs".length);
  await writeFile(entry, `#!/bin/sh\nexec "${process.execPath}" "${script}" "$@"\n`);
  await chmod(entry, 0o755);
}

describe("a docker run with a coprocessor sidecar from its image", () => {
  it("the sidecar container that dies makes the repetition invalid, with the end of its log", async () => {
    const tmp = await mkdtemp(path.join(os.tmpdir(), "pb-sidecar-run-"));
    const state = path.join(tmp, "state");
    const images = path.join(tmp, "images");
    await mkdir(state);
    await mkdir(images);
    await image(images, "proxybench/gw:t", GATEWAY);
    await image(images, "proxybench/coprocessor-dying:t", DYING);
    const proxies = path.join(tmp, "proxies");
    await mkdir(path.join(proxies, "gw"), { recursive: true });
    await writeFile(
      path.join(proxies, "gw", "proxy.yml"),
      stringify({
        name: "gw",
        description: "asks its coprocessor, then forwards to the upstream",
        image: { args: ["{{listenPort}}", "{{upstreamPort}}", "{{sidecarPort}}"] },
        memoryLimitBytes: 1073741824,
        sidecar: {
          name: "coprocessor-dying",
          image: "proxybench/coprocessor-dying:t",
          args: ["--listen", "127.0.0.1:{{sidecarPort}}"],
          cpus: [0],
        },
      }),
    );
    const scenarios = await lightScenarioDir({ rate: 50, vus: 4, root: path.join(tmp, "scenarios") });
    process.env.FAKE_DOCKER_STATE = state;
    process.env.FAKE_DOCKER_IMAGES = images;
    try {
      const cpus = os.cpus().length >= 2 ? "loadgen=0,proxy=1,upstream=1" : "loadgen=0,proxy=0,upstream=0";
      const outcome = await runBenchmark(
        {
          proxies: ["gw"],
          scenarios: ["light"],
          proxiesDirs: [proxies],
          scenariosDirs: [scenarios],
          repetitions: 2,
          durationS: 1,
          warmupS: 0.25,
          retries: 0,
          noiseLimit: 100,
          cpus,
          runtime: "docker",
          imageTag: "t",
          out: path.join(tmp, "out"),
        },
        {
          engines,
          runtime: new DockerRuntime({ docker: FAKE_DOCKER, runId: "sr", user: "1000:1000" }),
          stdout: collectText(),
          stderr: collectText(),
          handleSignals: false,
        },
      );
      const cell = outcome.results.cells[0]!;
      expect(cell.status).toBe("invalid");
      expect(cell.repetitions).toHaveLength(1); // the cell stops: no second repetition
      expect(cell.repetitions[0]?.status).toBe("invalid");
      expect(cell.repetitions[0]?.reasons.join(" ")).toMatch(
        /sidecar coprocessor-dying exited during repetition 1 \(exit code 3\); log: .*simulated crash after 60 stage requests/,
      );
      expect(cell.logs.filter((l) => l.endsWith("-coprocessor-dying.log"))).toHaveLength(1);
      // The sidecar ran from its image, pinned, capped, on the host network, on the gateway's port.
      const calls = (await readFile(path.join(state, "calls"), "utf8")).split("\n");
      const sidecarRun = calls.find(
        (l) => l.startsWith("run ") && l.includes("proxybench/coprocessor-dying:t"),
      );
      const gatewayRun = calls.find((l) => l.startsWith("run ") && l.includes("proxybench/gw:t"));
      const port = /--listen 127\.0\.0\.1:(\d+)/.exec(sidecarRun ?? "")?.[1];
      expect(sidecarRun).toMatch(/--network host .*--cpuset-cpus 0 --memory 1073741824/);
      expect(gatewayRun).toMatch(new RegExp(`proxybench/gw:t \\d+ \\d+ ${port}$`));
      expect(liveProcesses()).toEqual([]);
    } finally {
      delete process.env.FAKE_DOCKER_STATE;
      delete process.env.FAKE_DOCKER_IMAGES;
      await rm(tmp, { recursive: true, force: true });
    }
  }, 120_000);
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { PROJECT_ROOT, findExecutable } from "../../../src/util/paths.js";
import { runCommand, startProcess, type ManagedProcess } from "../../../src/util/processes.js";

/**
 * The upstream binary as users get it: built from upstream/ with `go build`, started on port 0,
 * and exercised over real HTTP on 127.0.0.1.
 */

let dir: string;
let binary: string;
const started: ManagedProcess[] = [];

interface Upstream {
  proc: ManagedProcess;
  url: string;
  /** Everything printed on stdout up to the ready line. */
  stdout: string;
}

/** Starts the upstream and waits (at most 20 s) for its ready line on stdout. */
async function startUpstream(args: string[] = [], cpus?: number[]): Promise<Upstream> {
  const proc = await startProcess({
    name: "proxybench-upstream",
    command: binary,
    args: ["--listen", "127.0.0.1:0", ...args],
    cpus,
  });
  started.push(proc);
  let stdout = "";
  const ready = new Promise<string>((resolve, reject) => {
    proc.child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
      if (stdout.includes("\n")) resolve(stdout);
    });
    void proc.exited.then((exit) =>
      reject(new Error(`upstream exited (${JSON.stringify(exit)}) before it was ready: ${proc.output()}`)),
    );
  });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no ready line after 20 s: ${proc.output()}`)), 20_000);
  });
  try {
    stdout = await Promise.race([ready, timeout]);
  } finally {
    clearTimeout(timer);
  }
  const match = /^listening on 127\.0\.0\.1:(\d+)\n$/.exec(stdout);
  if (!match) throw new Error(`unexpected ready output: ${JSON.stringify(stdout)}`);
  return { proc, url: `http://127.0.0.1:${match[1]}`, stdout };
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "proxybench-upstream-"));
  binary = path.join(dir, "proxybench-upstream");
  const go = (await findExecutable("go")) ?? (await findExecutable("/usr/local/go/bin/go"));
  if (!go) throw new Error("Go is needed to build the upstream (scripts/setup.sh says how to install it)");
  const build = await runCommand(go, ["build", "-trimpath", "-o", binary, "."], {
    cwd: path.join(PROJECT_ROOT, "upstream"),
    timeoutMs: 170_000,
  });
  if (build.code !== 0) throw new Error(`go build failed:\n${build.output}`);
}, 180_000);

afterAll(async () => {
  await Promise.all(started.map((p) => p.stop(1000)));
  await rm(dir, { recursive: true, force: true });
});

describe("proxybench-upstream over HTTP", () => {
  let up: Upstream;
  beforeAll(async () => {
    up = await startUpstream();
  });

  it("prints exactly one ready line with the real port", () => {
    const port = Number(/:(\d+)\n$/.exec(up.stdout)?.[1]);
    expect(port).toBeGreaterThan(0);
    expect(up.stdout.split("\n")).toEqual([`listening on 127.0.0.1:${port}`, ""]);
  });

  it.each<[string, number, string, string | undefined]>([
    ["/health", 200, "text/plain; charset=utf-8", "ok\n"],
    ["/api/values", 200, "application/json; charset=utf-8", '["value1","value2"]'],
    ["/countries/zz", 404, "application/json; charset=utf-8", '{"status":404,"message":"Not Found"}'],
    ["/nope", 404, "application/json; charset=utf-8", '{"status":404,"message":"Not Found"}'],
    ["/status/503", 503, "text/plain; charset=utf-8", "503 Service Unavailable\n"],
    ["/status/42", 400, "text/plain; charset=utf-8", undefined],
    ["/bytes/10485761", 400, "text/plain; charset=utf-8", undefined],
  ])("GET %s: %i %s", async (route, status, contentType, body) => {
    const res = await fetch(up.url + route);
    const text = await res.text();
    expect(res.status).toBe(status);
    expect(res.headers.get("content-type")).toBe(contentType);
    expect(res.headers.get("server")).toBe("proxybench-upstream");
    expect(res.headers.get("content-length")).toBe(String(Buffer.byteLength(text)));
    if (body !== undefined) expect(text).toBe(body);
  });

  it("serves /api/values as the 19 bytes of the Ocelot study", async () => {
    const res = await fetch(`${up.url}/api/values`);
    expect((await res.arrayBuffer()).byteLength).toBe(19);
  });

  it.each(["us", "US", "fr", "de", "jp", "br", "in", "gb"])(
    "serves a country document of about 3.4 KB for %s, under both paths",
    async (code) => {
      const a = await fetch(`${up.url}/countries/${code}`);
      const b = await fetch(`${up.url}/v3.1/alpha/${code}`);
      const body = Buffer.from(await a.arrayBuffer());
      expect(a.status).toBe(200);
      expect(a.headers.get("content-type")).toBe("application/json; charset=utf-8");
      expect(body.length).toBeGreaterThanOrEqual(3000);
      expect(body.length).toBeLessThanOrEqual(3800);
      expect(Number(a.headers.get("content-length"))).toBe(body.length);
      const doc = JSON.parse(body.toString("utf8")) as { cca2: string; name: { common: string } };
      expect(doc.cca2).toBe(code.toUpperCase());
      expect(doc.name.common).not.toBe("");
      expect(Buffer.from(await b.arrayBuffer()).equals(body)).toBe(true);
    },
  );

  it.each([0, 1, 1024, 10 * 1024 * 1024])("serves /bytes/%i", async (n) => {
    const res = await fetch(`${up.url}/bytes/${n}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/octet-stream");
    expect(res.headers.get("content-length")).toBe(String(n));
    expect((await res.arrayBuffer()).byteLength).toBe(n);
  });

  it("answers 405 with Allow to other methods, and HEAD without a body", async () => {
    const post = await fetch(`${up.url}/api/values`, { method: "POST", body: "x" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD");
    await post.arrayBuffer();
    const head = await fetch(`${up.url}/countries/fr`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(Number(head.headers.get("content-length"))).toBeGreaterThan(3000);
    expect((await head.arrayBuffer()).byteLength).toBe(0);
  });

  it("answers pipelined requests on one kept-alive connection", async () => {
    const { hostname, port } = new URL(up.url);
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(port), hostname);
      let data = "";
      socket.setEncoding("utf8");
      socket.on("data", (chunk: string) => {
        data += chunk;
        if (data.endsWith("ok\n")) {
          socket.end();
          resolve(data);
        }
      });
      socket.on("error", reject);
      socket.setTimeout(10_000, () => reject(new Error(`no complete answer: ${JSON.stringify(data)}`)));
      socket.write(
        "GET /api/values HTTP/1.1\r\nHost: x\r\n\r\n" +
          "GET /status/201 HTTP/1.1\r\nHost: x\r\n\r\n" +
          "GET /health HTTP/1.1\r\nHost: x\r\n\r\n",
      );
    });
    // Bodies have no line end, so a status line may follow a body directly.
    const statusLines = [...raw.matchAll(/HTTP\/1\.1 \d{3} [^\r]*/g)].map((m) => m[0]);
    expect(statusLines).toEqual(["HTTP/1.1 200 OK", "HTTP/1.1 201 Created", "HTTP/1.1 200 OK"]);
    expect(raw).not.toMatch(/^Connection: close/im);
  });
});

describe("proxybench-upstream options", () => {
  it("--latency never delays /health (an hour of latency, an answer anyway)", async () => {
    const up = await startUpstream(["--latency", "1h"]);
    const res = await fetch(`${up.url}/health`, { signal: AbortSignal.timeout(20_000) });
    expect(await res.text()).toBe("ok\n");
    await up.proc.stop(1000);
  });

  it("--latency 50ms delays every response by at least 50 ms", async () => {
    const up = await startUpstream(["--latency", "50ms"]);
    for (const route of ["/api/values", "/countries/us"]) {
      const start = performance.now();
      const res = await fetch(up.url + route);
      await res.arrayBuffer();
      expect(res.status).toBe(200);
      expect(performance.now() - start).toBeGreaterThanOrEqual(50);
    }
    await up.proc.stop(1000);
  });

  it("--max-rps 500 serves 500 req/s within 10% under wrk, with no error and no non-2xx", async () => {
    const wrk = await findExecutable("wrk");
    if (!wrk) throw new Error("wrk is needed for this test (scripts/setup.sh installs it)");
    const up = await startUpstream(["--max-rps", "500"]);
    // 10 connections asking as fast as they can for 2 s: the limit, not wrk, sets the rate.
    const run = await runCommand(wrk, ["-t1", "-c10", "-d2s", `${up.url}/api/values`], { timeoutMs: 30_000 });
    await up.proc.stop(1000);
    expect(run.code, run.output).toBe(0);
    const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(run.output)?.[1]);
    // wrk prints these lines only when some request failed or was not 2xx/3xx.
    expect(run.output).not.toMatch(/Socket errors|Non-2xx or 3xx responses/);
    expect(rps, run.output).toBeGreaterThanOrEqual(450);
    expect(rps, run.output).toBeLessThanOrEqual(550);
  });

  it("follows the cores it is pinned to (GOMAXPROCS=1 under taskset -c 0)", async () => {
    const up = await startUpstream([], [0]);
    expect(up.proc.output()).toMatch(/GOMAXPROCS=1 /);
    await up.proc.stop(1000);
  });

  it("exits on SIGTERM within 1 s, even with a request in progress", async () => {
    const up = await startUpstream(["--latency", "30s"]);
    const pending = fetch(`${up.url}/api/values`).catch((err: unknown) => err);
    await new Promise((resolve) => setTimeout(resolve, 200)); // the request is now sleeping
    // stop() sends SIGTERM and SIGKILL after 1 s: exiting by itself with 0 means within 1 s.
    const exit = await up.proc.stop(1000);
    expect(exit).toEqual({ code: 0, signal: null });
    await pending;
  });

  it("prints its version, and rejects a bad flag naming it", async () => {
    const version = await runCommand(binary, ["--version"]);
    expect(version.code).toBe(0);
    expect(version.output).toMatch(/^proxybench-upstream \d+\.\d+\.\d+ go\S+/);
    const bad = await runCommand(binary, ["--max-rps", "-3"]);
    expect(bad.code).toBe(2);
    expect(bad.output).toContain("--max-rps");
  });
});

import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { findExecutable } from "../../../src/util/paths.js";
import { freePort } from "../../../src/util/ports.js";
import { startProcess, type ManagedProcess } from "../../../src/util/processes.js";

/**
 * A real nginx serving what the scenarios expect from the upstream: /health, /api/values (the
 * 19-byte body) and /countries/{code} (about 3.4 KB of JSON), 404 elsewhere. Used by the
 * engine tests so that they run whether or not the Go upstream is built.
 */
export interface TestServer {
  baseUrl: string;
  port: number;
  process: ManagedProcess;
  dir: string;
  stop(): Promise<void>;
}

const COUNTRY_CODES = ["us", "fr", "de", "jp", "br"];

/** A country document of about 3.4 KB. */
function countryJson(code: string): string {
  const doc = {
    name: { common: `Country ${code.toUpperCase()}`, official: `The Country of ${code.toUpperCase()}` },
    cca2: code.toUpperCase(),
    region: "Somewhere",
    notes: Array.from({ length: 60 }, (_, i) => `note ${i} about ${code}: ${"x".repeat(32)}`),
  };
  return JSON.stringify(doc);
}

export async function startTestServer(
  options: { workers?: number; cpus?: number[] } = {},
): Promise<TestServer> {
  const nginx = await findExecutable("nginx");
  if (!nginx) throw new Error("nginx is not installed (apt-get install nginx-light)");
  const dir = await mkdtemp(path.join(os.tmpdir(), "proxybench-engines-"));
  await chmod(dir, 0o755); // nginx workers run as another user when the tests run as root
  await mkdir(path.join(dir, "www", "countries"), { recursive: true });
  await mkdir(path.join(dir, "tmp"));
  for (const code of COUNTRY_CODES) {
    await writeFile(path.join(dir, "www", "countries", `${code}.json`), countryJson(code));
  }
  const port = await freePort();
  const conf = `worker_processes ${options.workers ?? 1};
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${dir}/tmp;
  proxy_temp_path ${dir}/tmp;
  fastcgi_temp_path ${dir}/tmp;
  uwsgi_temp_path ${dir}/tmp;
  scgi_temp_path ${dir}/tmp;
  keepalive_requests 1000000;
  server {
    listen 127.0.0.1:${port} backlog=4096;
    root ${dir}/www;
    location = /health { default_type text/plain; return 200 'ok'; }
    location = /api/values { default_type application/json; return 200 '["value1","value2"]'; }
    location ~ "^/countries/([a-z]{2})$" { default_type application/json; try_files /countries/$1.json =404; }
  }
}
`;
  await writeFile(path.join(dir, "nginx.conf"), conf);
  const proc = await startProcess({
    name: "nginx (engine tests)",
    command: nginx,
    args: ["-c", path.join(dir, "nginx.conf"), "-p", dir, "-e", path.join(dir, "error.log")],
    cpus: options.cpus,
    logFile: path.join(dir, "nginx.log"),
  });
  await waitForPort(port, proc);
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    port,
    process: proc,
    dir,
    async stop() {
      await proc.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function waitForPort(port: number, proc: ManagedProcess): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (!proc.alive()) throw new Error("nginx exited at start");
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nginx did not listen on ${port}`);
}

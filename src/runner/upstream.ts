import { readdir, stat } from "node:fs/promises";
import path from "node:path";
import { execOutput } from "../environment/exec.js";
import { UserError } from "../util/errors.js";
import { PROJECT_ROOT, TOOLS_BIN, fileSize, findExecutable } from "../util/paths.js";
import { logFrom, logTail } from "../util/logs.js";
import type { ProcessSpec, RunningProcess, Runtime } from "./runtime.js";
import { withoutUndefined } from "../util/objects.js";

/** The built-in upstream: built from upstream/ into .tools/bin by `npm run setup`. */
export const UPSTREAM_SRC = path.join(PROJECT_ROOT, "upstream");
export const UPSTREAM_BIN = path.join(TOOLS_BIN, "proxybench-upstream");
/** Another upstream binary (same flags and `listening on` lines), e.g. for a custom build. */
const UPSTREAM_ENV = "PROXYBENCH_UPSTREAM";

/**
 * The upstream binary, (re)built with `go build` when upstream/ holds sources newer than the
 * binary (the Go build cache makes this fast). Fails with the fix when neither works.
 */
export async function ensureUpstream(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const custom = env[UPSTREAM_ENV];
  if (custom) {
    const found = await findExecutable(custom);
    if (!found) throw new UserError(`$${UPSTREAM_ENV}=${custom}: not an executable file`);
    return found;
  }
  const binTime = await mtime(UPSTREAM_BIN);
  const srcTime = await newestSource(UPSTREAM_SRC);
  if (srcTime === undefined) {
    if (binTime !== undefined) return UPSTREAM_BIN;
    throw new UserError(`the upstream server is missing (${UPSTREAM_BIN}); run 'npm run setup'`);
  }
  if (binTime !== undefined && binTime >= srcTime) return UPSTREAM_BIN;
  const go = (await findExecutable("go")) ?? (await findExecutable("/usr/local/go/bin/go"));
  if (!go) {
    if (binTime !== undefined) return UPSTREAM_BIN; // stale but usable
    throw new UserError(`the upstream server is not built and Go is not installed; run 'npm run setup'`);
  }
  const { code, output } = await execOutput(go, ["build", "-o", UPSTREAM_BIN, "."], {
    cwd: UPSTREAM_SRC,
    timeoutMs: 300_000,
  });
  if (code !== 0) {
    throw new UserError(`building the upstream server failed ('npm run setup' builds it):\n${output.trim()}`);
  }
  return UPSTREAM_BIN;
}

/** Newest modification time of the Go sources under `dir` (undefined: no sources). */
async function newestSource(dir: string): Promise<number | undefined> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  let newest: number | undefined;
  let hasMain = false;
  for (const e of entries) {
    // countries.jsonl is embedded in the binary: a change to it needs a rebuild too.
    if (!e.isFile() || !/\.go$|^go\.(mod|sum)$|\.jsonl$/.test(e.name)) continue;
    if (e.name.endsWith(".go")) hasMain = true;
    const t = await mtime(path.join(e.parentPath, e.name));
    if (t !== undefined && (newest === undefined || t > newest)) newest = t;
  }
  return hasMain ? newest : undefined;
}

async function mtime(file: string): Promise<number | undefined> {
  return stat(file).then(
    (s) => s.mtimeMs,
    () => undefined,
  );
}

/**
 * The upstream's listeners as its output names them: `listening on HOST:PORT` (HTTP/1.1),
 * `grpc listening on` (the PingPong gRPC server, h2c), `grpcs` and `https` (the same over TLS).
 */
const LISTENERS = ["http", "grpc", "grpcs", "https"] as const;
type Listener = (typeof LISTENERS)[number];

/** Where the upstream's output says a listener listens. Pure. */
export function parseListening(
  output: string,
  listener: Listener = "http",
): { host: string; port: number } | undefined {
  const prefix = listener === "http" ? "(?<!(?:grpcs?|https) )" : `${listener} `;
  const m = new RegExp(`${prefix}listening on (\\S+):(\\d+)`).exec(output);
  return m ? { host: m[1] ?? "127.0.0.1", port: Number(m[2]) } : undefined;
}

export interface StartedUpstream {
  proc: RunningProcess;
  host: string;
  /** HTTP/1.1 */
  port: number;
  /** The PingPong gRPC server (h2c), on the same host. */
  grpcPort: number;
  /** The PingPong gRPC server and HTTP/1.1 over TLS, in a run with TLS. */
  grpcsPort?: number;
  httpsPort?: number;
}

/** Starts the upstream and waits for its `listening on` and `grpc listening on` lines. */
export async function startUpstream(
  runtime: Runtime,
  spec: ProcessSpec,
  timeoutMs = 10_000,
): Promise<StartedUpstream> {
  // The log is appended to (a resumed run reuses it): only what this start printed counts.
  const offset = await fileSize(spec.logFile);
  const proc = await runtime.start(spec);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = await logFrom(spec.logFile, offset);
    const [addr, grpc, grpcs, https] = LISTENERS.map((listener) => parseListening(text, listener));
    const tlsReady = !spec.args.includes("--grpcs-listen") || (grpcs !== undefined && https !== undefined);
    if (addr && grpc && tlsReady) {
      return {
        proc,
        host: addr.host,
        port: addr.port,
        grpcPort: grpc.port,
        ...withoutUndefined({ grpcsPort: grpcs?.port, httpsPort: https?.port }),
      };
    }
    if (!proc.alive() || Date.now() > deadline) {
      const why = proc.alive()
        ? `did not say 'listening on' and 'grpc listening on' within ${timeoutMs / 1000} s`
        : "exited";
      await proc.stop();
      throw new UserError(
        `the upstream server ${why}; its log (${spec.logFile}):\n${await logTail(spec.logFile)}`,
      );
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

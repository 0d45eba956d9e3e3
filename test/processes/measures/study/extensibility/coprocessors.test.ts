import { afterAll, describe, expect, it } from "vitest";
import { readFile } from "node:fs/promises";
import path from "node:path";
import {
  coprocessorBinary,
  loadCoprocessor,
} from "../../../../../src/measures/study/extensibility/coprocessors.js";
import { freePort } from "../../../../../src/util/ports.js";
import { PROJECT_ROOT } from "../../../../../src/util/paths.js";
import { liveProcesses, startProcess, stopAll } from "../../../../../src/util/processes.js";

// Every coprocessor that runs here, started from its coprocessor.yml as the study starts it,
// answers the three endpoints of Apollo Router's coprocessor protocol the same way.

const GOOD = await tokenFrom(
  path.join(PROJECT_ROOT, "studies", "extensibility", "scenarios", "client-awareness"),
);
const BAD = "Bearer eyJhbGciOiJIUzI1NiJ9.eyJjbGllbnRfbmFtZSI6IngiLCJjbGllbnRfdmVyc2lvbiI6IjEifQ.c2lnbmF0dXJl";

async function tokenFrom(dir: string): Promise<string> {
  const text = await readFile(path.join(dir, "scenario.yml"), "utf8");
  return /"(Bearer [^"]+)"/.exec(text)?.[1] ?? "";
}

type Answer = { headers: Record<string, string[]>; control: unknown; id: string; keep?: number };

async function stage(base: string, endpoint: string, headers: Record<string, string[]>, mirror = false) {
  const res = await fetch(base + endpoint, {
    method: "POST",
    headers: { "content-type": "application/json", ...(mirror ? { "x-proxybench-mirror": "1" } : {}) },
    body: JSON.stringify({
      version: 1,
      stage: "RouterRequest",
      control: "continue",
      id: "id-1",
      headers,
      keep: 7,
    }),
  });
  return { status: res.status, mirrored: res.headers, answer: (await res.json()) as Answer };
}

async function ready(base: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const ok = await fetch(`${base}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${base}: not ready after 10 s`);
}

afterAll(() => stopAll());

describe.each(["go", "node", "python", "java"])("the %s coprocessor", (name) => {
  it("sets the static header, ten GUIDs, the client from a valid token, and breaks with 401 on a bad one", async () => {
    const c = await loadCoprocessor(name);
    const where = await coprocessorBinary(c);
    if (!("path" in where)) throw new Error(`${name}: ${where.reason}`);
    const port = await freePort();
    const args = (c.manifest.native?.args ?? []).map((a) =>
      a.replaceAll("{{dir}}", c.dir).replaceAll("{{sidecarPort}}", String(port)),
    );
    const proc = await startProcess({ name, command: where.path, args });
    const base = `http://127.0.0.1:${port}`;
    try {
      await ready(base);
      const stat = await stage(base, "/static-subgraph", { accept: ["*/*"] });
      expect(stat.answer.headers).toEqual({ accept: ["*/*"], source: [name] });
      expect(stat.answer).toMatchObject({ control: "continue", id: "id-1", keep: 7 });
      const guids = (await stage(base, "/guid-response", {})).answer.headers;
      expect(new Set(Object.values(guids).flat()).size).toBe(10);
      const client = await stage(base, "/client-awareness", { authorization: [GOOD] }, true);
      expect(client.answer.headers["apollographql-client-name"]).toEqual(["proxybench-web"]);
      expect(client.answer.headers["apollographql-client-version"]).toEqual(["1.4.2"]);
      expect(client.mirrored.get("x-coprocessor-header-apollographql-client-name")).toBe("proxybench-web");
      const refused = await stage(base, "/client-awareness", { authorization: [BAD] }, true);
      expect(refused.status).toBe(401);
      expect(refused.answer.control).toEqual({ break: 401 });
    } finally {
      await proc.stop();
    }
    expect(liveProcesses()).toEqual([]);
  }, 30_000);
});

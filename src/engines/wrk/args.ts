import { expandRequests, type ExpandedRequest } from "../requests.js";
import type { EngineInvocation } from "../types.js";
import { closedShape, wholeSeconds } from "../load.js";

/** Socket/request timeout: a response slower than this counts as a timeout error. */
const WRK_TIMEOUT_S = 10;

/** Pure: the wrk command line (the script reads the requests and the output file from the environment). */
export function buildWrkArgs(inv: EngineInvocation, luaPath: string): string[] {
  const { threads, connections } = closedShape("wrk", inv.load, inv.cpus.length);
  const first = expandRequests(inv.scenario)[0];
  const url = inv.baseUrl.replace(/\/+$/, "") + (first?.path ?? "/");
  return [
    "-t",
    String(threads),
    "-c",
    String(connections),
    "-d",
    `${wholeSeconds(inv.durationS)}s`,
    "--timeout",
    `${WRK_TIMEOUT_S}s`,
    "--latency",
    "-s",
    luaPath,
    url,
  ];
}

/** Pure: a Lua string literal for any string (bytes outside printable ASCII as \ddd escapes). */
export function luaString(value: string): string {
  let out = '"';
  for (const byte of Buffer.from(value, "utf8")) {
    if (byte === 0x22) out += '\\"';
    else if (byte === 0x5c) out += "\\\\";
    else if (byte >= 0x20 && byte < 0x7f) out += String.fromCharCode(byte);
    else out += `\\${byte.toString().padStart(3, "0")}`;
  }
  return out + '"';
}

/** Pure: the requests of one iteration as a Lua table literal (read by scenarios/lib/wrk.lua). */
export function luaRequests(requests: readonly ExpandedRequest[]): string {
  const items = requests.map((r) => {
    const headers = Object.entries(r.headers)
      .map(([k, v]) => `[${luaString(k)}]=${luaString(v)}`)
      .join(", ");
    const body = r.body === undefined ? "" : `, body=${luaString(r.body)}`;
    return `{method=${luaString(r.method)}, path=${luaString(r.path)}, headers={${headers}}${body}}`;
  });
  return `{${items.join(", ")}}`;
}

/** Pure: the environment of the wrk process. */
export function buildWrkEnv(inv: EngineInvocation, summaryFile: string): Record<string, string> {
  return {
    PROXYBENCH_WRK_REQUESTS: luaRequests(expandRequests(inv.scenario)),
    PROXYBENCH_WRK_OUT: summaryFile,
  };
}

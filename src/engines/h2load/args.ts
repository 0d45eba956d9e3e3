import { expandRequests, type ExpandedRequest } from "../requests.js";
import type { EngineInvocation } from "../types.js";
import { closedShape, wholeSeconds } from "../load.js";
import { UserError } from "../../util/errors.js";

/**
 * h2load (nghttp2's HTTP/2 load generator, Debian nghttp2-client): closed-model max rate over
 * HTTP/2, in cleartext (h2c, prior knowledge, an http:// target) or over TLS (h2 by ALPN, an
 * https:// target). Pure builders of its command line.
 */

/** The request h2load repeats: the scenario's first (h2load sends one method and body). */
export function h2loadRequest(inv: Pick<EngineInvocation, "scenario">): ExpandedRequest {
  const first = expandRequests(inv.scenario)[0];
  if (first === undefined) throw new UserError(`scenario '${inv.scenario.name}': no request for h2load`);
  if (first.method !== "GET" && first.method !== "POST") {
    throw new UserError(
      `scenario '${inv.scenario.name}': h2load sends GET or POST (with a body), not ${first.method}`,
    );
  }
  return first;
}

/**
 * Pure: the h2load command line. One stream at a time per client (-m 1), as the other engines'
 * VUs; `-d` (the body's file) makes it a POST. The log file holds one line per response.
 */
export function buildH2loadArgs(
  inv: EngineInvocation,
  files: { logFile: string; bodyFile?: string },
): string[] {
  const { threads, connections: clients } = closedShape("h2load", inv.load, inv.cpus.length);
  const request = h2loadRequest(inv);
  const headers = Object.entries(request.headers).flatMap(([name, value]) => ["-H", `${name}: ${value}`]);
  return [
    "-t",
    String(threads),
    "-c",
    String(clients),
    "-m",
    "1",
    "-D",
    String(wholeSeconds(inv.durationS)),
    "--log-file",
    files.logFile,
    ...headers,
    ...(files.bodyFile === undefined ? [] : ["-d", files.bodyFile]),
    inv.baseUrl.replace(/\/+$/, "") + request.path,
  ];
}

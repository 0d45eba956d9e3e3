import type { ScenarioManifest } from "../manifests/schema.js";
import { expandRequests, type ExpandedRequest } from "./requests.js";
import { checksEffects, effectProblems, lowerCaseHeaders, type ResponseHeaders } from "./response-effects.js";
import { fetchErrorReason, fetchOverH2c, fetchOverTls, type FetchedResponse } from "./fetch.js";
import type { ProbeResult } from "./types.js";

/** Times each request is sent by the probe. */
export const PROBE_ATTEMPTS = 3;
const PROBE_TIMEOUT_MS = 5000;
/** The probe accepts a body this far from the upstream's declared size. */
const BODY_SIZE_TOLERANCE = 0.25;

export interface ProbeResponse {
  status: number;
  contentType: string;
  body: Buffer;
  /** By name in lower case; needed when the scenario checks headers. */
  headers?: ResponseHeaders;
}

/**
 * Pure: what is wrong with one response, as short phrases (empty: correct). A wrong status is
 * described with the body it came with, the way a user recognises an error page.
 */
export function responseProblems(scenario: ScenarioManifest, method: string, res: ProbeResponse): string[] {
  const { check, upstream } = scenario;
  const size = res.body.length;
  const type = res.contentType.split(";")[0]?.trim() || "no content type";
  if (!check.status.includes(res.status)) {
    return [`${res.status} (expected ${check.status.join(" or ")}), ${size}-byte ${type} body`];
  }
  const problems: string[] = [];
  const wantedType = check.contentType ?? upstream.contentType;
  if (wantedType !== undefined && !res.contentType.includes(wantedType)) {
    problems.push(`content type ${res.contentType || "(none)"} (expected ${wantedType})`);
  }
  if (method === "HEAD") return problems;
  const text = res.body.toString("utf8");
  if (check.bodyEquals !== undefined && text !== check.bodyEquals) {
    problems.push(`body ${snippet(text)} (expected ${snippet(check.bodyEquals)})`);
  }
  if (check.bodyContains !== undefined && !text.includes(check.bodyContains)) {
    problems.push(`body does not contain ${snippet(check.bodyContains)}`);
  }
  const declared = upstream.bodyBytes;
  if (declared !== undefined && Math.abs(size - declared) > declared * BODY_SIZE_TOLERANCE) {
    problems.push(`${size}-byte body (expected about ${declared} bytes, +-${BODY_SIZE_TOLERANCE * 100}%)`);
  }
  if (checksEffects(check)) problems.push(...effectProblems(check, res.headers ?? {}, text));
  return problems;
}

function snippet(text: string): string {
  const one = JSON.stringify(text);
  return one.length > 60 ? `${one.slice(0, 57)}..."` : one;
}

/** How the probe reaches its target: over TLS trusting the run's CA, over h2c, or fetch. */
interface Transport {
  ca?: string;
  h2c?: boolean;
}

async function send(
  baseUrl: string,
  r: ExpandedRequest,
  via: Transport,
): Promise<ProbeResponse | { error: string }> {
  const url = baseUrl.replace(/\/+$/, "") + r.path;
  const request = { method: r.method, headers: r.headers, ...(r.body === undefined ? {} : { body: r.body }) };
  const timed = { ...request, timeoutMs: PROBE_TIMEOUT_MS };
  try {
    // fetch can neither trust the run's CA alone nor speak h2c
    const res =
      via.ca !== undefined
        ? await fetchOverTls(url, timed, via.ca)
        : via.h2c === true
          ? await fetchOverH2c(url, timed)
          : await fetchPlain(url, request);
    const headers = lowerCaseHeaders(res.headers);
    return { status: res.status, contentType: res.headers["content-type"] ?? "", body: res.body, headers };
  } catch (err) {
    return { error: fetchErrorReason(err) };
  }
}

/** One request with Node's fetch, redirects not followed. */
async function fetchPlain(url: string, request: RequestInit): Promise<FetchedResponse> {
  const res = await fetch(url, {
    ...request,
    redirect: "manual",
    signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
  });
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => (headers[name] = value));
  return { status: res.status, headers, body: Buffer.from(await res.arrayBuffer()) };
}

/**
 * Sends each request of the scenario a few times and checks every response the way the load
 * will be judged (status, content type, body) plus the upstream's declared body size. This is
 * the only body check for engines that cannot check bodies (wrk).
 */
export async function probe(baseUrl: string, scenario: ScenarioManifest, ca?: string): Promise<ProbeResult> {
  const via: Transport = { ...(ca === undefined ? {} : { ca }), h2c: scenario.protocol === "h2c" };
  const statusCodes: Record<string, number> = {};
  const reasons = new Set<string>();
  for (const r of expandRequests(scenario)) {
    for (let i = 0; i < PROBE_ATTEMPTS; i++) {
      const res = await send(baseUrl, r, via);
      const code = "error" in res ? 0 : res.status;
      statusCodes[code] = (statusCodes[code] ?? 0) + 1;
      const problems =
        "error" in res ? [`no response (${res.error})`] : responseProblems(scenario, r.method, res);
      for (const p of problems) reasons.add(`${r.method} ${r.path}: ${p}`);
    }
  }
  for (const p of await rejectProblems(baseUrl, scenario, via)) reasons.add(p);
  return { ok: reasons.size === 0, reasons: [...reasons], statusCodes };
}

/**
 * The scenario's `check.rejects`: its first request sent with other headers (a bad token) must
 * be refused with one of the given statuses. Not counted in the status codes of the probe.
 */
async function rejectProblems(
  baseUrl: string,
  scenario: ScenarioManifest,
  via: Transport,
): Promise<string[]> {
  const first = expandRequests(scenario)[0];
  if (!first) return [];
  const problems: string[] = [];
  for (const rule of scenario.check.rejects ?? []) {
    const r = { ...first, headers: { ...first.headers, ...rule.headers } };
    const res = await send(baseUrl, r, via);
    const with_ = Object.entries(rule.headers)
      .map(([n, v]) => `${n}: ${v}`)
      .join(", ");
    if ("error" in res) problems.push(`${r.method} ${r.path} with ${with_}: no response (${res.error})`);
    else if (!rule.status.includes(res.status)) {
      problems.push(
        `${r.method} ${r.path} with ${with_}: ${res.status} (expected ${rule.status.join(" or ")}: the request must be refused)`,
      );
    }
  }
  return problems;
}

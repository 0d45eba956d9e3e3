import type { ScenarioManifest } from "../manifests/schema.js";

/**
 * The checks of a scenario that prove a proxy did some work on a response (the extensibility
 * study): response headers it set, GUID headers it added, and what the upstream saw
 * (`/echo/headers` answers with the headers it received). Only engines that see every
 * response's headers and body apply them (vegeta, and the probe).
 */

export type ScenarioCheck = ScenarioManifest["check"];

/** Headers of a response, by name in lower case. */
export type ResponseHeaders = Record<string, string[]>;

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Pure: the headers with their names in lower case (vegeta gives Go's canonical names). */
export function lowerCaseHeaders(headers: Record<string, string[] | string>): ResponseHeaders {
  const out: ResponseHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    const key = name.toLowerCase();
    out[key] = [...(out[key] ?? []), ...(Array.isArray(value) ? value : [value])];
  }
  return out;
}

/** Does the check look at headers or the JSON body (so an engine that cannot must not run it)? */
export function checksEffects(check: ScenarioCheck): boolean {
  return (
    check.headers !== undefined || check.distinctGuidHeaders !== undefined || check.bodyJson !== undefined
  );
}

/** Pure: what is wrong with a 2xx response against the effect checks (empty: all done). */
export function effectProblems(check: ScenarioCheck, headers: ResponseHeaders, body: string): string[] {
  const problems: string[] = [];
  for (const [name, wanted] of Object.entries(check.headers ?? {})) {
    const got = headers[name.toLowerCase()];
    if (got?.length !== 1 || got[0] !== wanted) {
      problems.push(
        `response header ${name}: ${got ? JSON.stringify(got.join(", ")) : "missing"} (expected ${JSON.stringify(wanted)})`,
      );
    }
  }
  if (check.distinctGuidHeaders !== undefined) {
    const guids = new Set(
      Object.values(headers)
        .flat()
        .filter((v) => GUID.test(v.trim())),
    );
    if (guids.size < check.distinctGuidHeaders) {
      problems.push(`${guids.size} distinct GUID headers (expected at least ${check.distinctGuidHeaders})`);
    }
  }
  if (check.bodyJson !== undefined) problems.push(...bodyJsonProblems(check.bodyJson, body));
  return problems;
}

function bodyJsonProblems(wanted: Record<string, string>, body: string): string[] {
  let seen: unknown;
  try {
    seen = JSON.parse(body);
  } catch {
    return [`body is not JSON (expected ${JSON.stringify(wanted)})`];
  }
  return Object.entries(wanted)
    .map(([key, value]) => ({ key, value, got: fieldAt(seen, key) }))
    .filter(({ value, got }) => got !== value)
    .map(
      ({ key, value, got }) =>
        `upstream saw ${key}: ${got === undefined || got === null ? "nothing" : JSON.stringify(got)} (expected ${JSON.stringify(value)})`,
    );
}

/** The field of a JSON value at a path: a top-level name, or names joined with dots (`data.source`). */
function fieldAt(value: unknown, key: string): unknown {
  if (value !== null && typeof value === "object" && key in value)
    return (value as Record<string, unknown>)[key];
  const dot = key.indexOf(".");
  if (dot < 0 || value === null || typeof value !== "object") return undefined;
  return fieldAt((value as Record<string, unknown>)[key.slice(0, dot)], key.slice(dot + 1));
}

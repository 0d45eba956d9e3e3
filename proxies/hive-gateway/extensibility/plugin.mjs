// The extensibility study's in-process plugin for Hive Gateway: the three tests as the gateway's
// plugin hooks (onFetch: a subgraph request; onResponse: the client's response; onRequest: the
// client's request), the same work as the coprocessors (coprocessors/README.md).
import { createHmac, randomUUID, timingSafeEqual } from "node:crypto";

// The study's token key (public, for benchmarks only).
const JWT_KEY = "proxybench-extensibility-key";

/** Adds headers to every subgraph request. */
export function withSubgraphHeaders(options, setOptions, headers) {
  setOptions({ ...options, headers: { ...options.headers, ...headers } });
}

/** Ten `x-guid-N` headers, each a new random GUID (version 4). */
export function guidHeaders() {
  return Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`x-guid-${i + 1}`, randomUUID()]));
}

/** The client's name and version from a valid HS256 bearer token with both claims, else undefined. */
export function clientFromToken(authorization) {
  const parts = /^Bearer (.+)$/.exec(authorization ?? "")?.[1].split(".") ?? [];
  if (parts.length !== 3) return undefined;
  const expected = createHmac("sha256", JWT_KEY).update(`${parts[0]}.${parts[1]}`).digest();
  const given = Buffer.from(parts[2], "base64url");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(parts[1], "base64url").toString());
    if (typeof claims.client_name !== "string" || typeof claims.client_version !== "string") return undefined;
    return {
      "apollographql-client-name": claims.client_name,
      "apollographql-client-version": claims.client_version,
    };
  } catch {
    return undefined;
  }
}

/** A GraphQL error response with this status. */
export function refusal(fetchAPI, status, message) {
  return new fetchAPI.Response(JSON.stringify({ errors: [{ message }] }), {
    status,
    headers: { "content-type": "application/json" },
  });
}

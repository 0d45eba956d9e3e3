import { overTls, type Protocol } from "./schema.js";

/**
 * What each protocol a scenario speaks implies: gRPC or HTTP, TLS or cleartext, and the TLS
 * protocol that `run --tls` measures beside a cleartext one. Pure.
 */

const TLS_COUNTERPART: Partial<Record<Protocol, Protocol>> = { http1: "https", h2c: "h2", grpc: "grpcs" };

/** The protocol over TLS that `--tls` adds beside `protocol` (undefined: it is TLS already). */
export function tlsCounterpart(protocol: Protocol): Protocol | undefined {
  return TLS_COUNTERPART[protocol];
}

export function usesTls(protocol: Protocol | undefined): boolean {
  return overTls(protocol) !== undefined;
}

export function isGrpc(protocol: Protocol | undefined): boolean {
  return protocol === "grpc" || protocol === "grpcs";
}

/** The URL scheme of a target speaking `protocol`. */
export function urlScheme(protocol: Protocol | undefined): "http" | "https" {
  return usesTls(protocol) ? "https" : "http";
}

// Hive Gateway's configuration for proxybench (a template, rendered into the instance's
// workdir): the supergraph of the built-in upstream's subgraph, one subgraph request per client
// request (no sharing of identical requests in flight, so that an extension's work and a
// coprocessor call happen for each), no request id header (it is a GUID, which would count
// towards the guid-response test's 10), and the extensibility study's
// extension when the variant has one: `extension.mjs` beside this file, which exports
// `extension`, a part of the gateway's configuration (proxies/hive-gateway/extensibility).
import { existsSync } from "node:fs";

const extensionFile = new URL("./extension.mjs", import.meta.url);
const { extension = {} } = existsSync(extensionFile) ? await import(extensionFile.href) : {};

export const gatewayConfig = {
  supergraph: "{{workdir}}/supergraph.graphql",
  pollingInterval: 0,
  transportEntries: { "*.http": { options: { deduplicateInflightRequests: false } } },
  requestId: false,
  graphiql: false,
  landingPage: false,
  logging: "warn",
  // Node closes a connection idle for 5 s by default, racing a client that sends on it (the
  // client sees a reset): longer than any run, as NGINX's 75 s and the coprocessors' 120 s.
  keepAliveTimeout: 120_000,
  ...extension,
};

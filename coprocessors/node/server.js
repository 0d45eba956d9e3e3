// The extensibility study's coprocessor in Node: Apollo Router's coprocessor HTTP protocol
// (coprocessors/README.md), no dependencies. Usage: node server.js --listen 127.0.0.1:PORT
import { createHmac, randomUUID, timingSafeEqual } from "node:crypto";
import { createServer } from "node:http";

const LANGUAGE = "node";
const JWT_KEY = "proxybench-extensibility-key";

/** The bearer token's client name and version when it is a valid HS256 JWT, else undefined. */
function clientFromToken(authorization) {
  const m = /^Bearer (.+)$/.exec(authorization ?? "");
  const parts = m ? m[1].split(".") : [];
  if (parts.length !== 3) return undefined;
  const expected = createHmac("sha256", JWT_KEY).update(`${parts[0]}.${parts[1]}`).digest();
  const given = Buffer.from(parts[2], "base64url");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(parts[1], "base64url").toString("utf8"));
    if (typeof claims.client_name !== "string" || typeof claims.client_version !== "string") return undefined;
    return { name: claims.client_name, version: claims.client_version };
  } catch {
    return undefined;
  }
}

/** The three tests: what each endpoint does to a stage payload (returns the headers it set). */
const endpoints = {
  "/static-subgraph": () => ({ source: LANGUAGE }),
  "/guid-response": () =>
    Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`x-guid-${i + 1}`, randomUUID()])),
  "/client-awareness": (payload) => {
    const client = clientFromToken(payload.headers?.authorization?.[0]);
    if (!client) return undefined;
    return { "apollographql-client-name": client.name, "apollographql-client-version": client.version };
  },
};

function handle(path, payload) {
  const set = endpoints[path](payload);
  if (set === undefined) {
    return {
      ...payload,
      control: { break: 401 },
      body: JSON.stringify({ errors: [{ message: "invalid token" }] }),
    };
  }
  const headers = { ...(payload.headers ?? {}) };
  for (const [name, value] of Object.entries(set)) headers[name] = [value];
  return { ...payload, control: "continue", headers, set };
}

function reply(res, req, result) {
  const { set, ...body } = result;
  const headers = { "content-type": "application/json" };
  let status = 200;
  if (req.headers["x-proxybench-mirror"] === "1") {
    for (const [name, value] of Object.entries(set ?? {})) headers[`x-coprocessor-header-${name}`] = value;
    if (typeof body.control === "object") status = body.control.break;
  }
  res.writeHead(status, headers).end(JSON.stringify(body));
}

const server = createServer((req, res) => {
  if (req.url === "/health") return res.writeHead(200).end("ok\n");
  if (req.method !== "POST" || !(req.url in endpoints)) return res.writeHead(404).end();
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    let payload;
    try {
      payload = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      return res.writeHead(400).end("not JSON\n");
    }
    reply(res, req, handle(req.url, payload));
  });
});
server.keepAliveTimeout = 120_000;

const at = process.argv.indexOf("--listen");
const [host, port] = (at > 0 ? process.argv[at + 1] : "127.0.0.1:8081").split(":");
server.listen(Number(port), host, () => console.log(`listening on ${host}:${server.address().port}`));
for (const signal of ["SIGTERM", "SIGINT"])
  process.on(signal, () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  });

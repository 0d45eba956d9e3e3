import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { probe, responseProblems } from "../../../src/engines/probe.js";
import { freePort } from "../../../src/util/ports.js";
import { loadScenario } from "../../support/engines/scenarios.js";
import { scenario } from "../../support/engines/manifests.js";
import { startTestServer, type TestServer } from "../../support/engines/nginx.js";

const json = (body: string, status = 200, contentType = "application/json") => ({
  status,
  contentType,
  body: Buffer.from(body),
});

describe("responseProblems", () => {
  const passthrough = scenario();
  const lookup = scenario({
    upstream: { contentType: "application/json", bodyBytes: 3400 },
    check: { status: [200], bodyContains: '"name"' },
  });
  const cases = [
    { name: "correct", s: passthrough, res: json('["value1","value2"]'), expected: [] },
    {
      name: "an error page",
      s: passthrough,
      res: json("x".repeat(494), 404, "text/html"),
      expected: ["404 (expected 200), 494-byte text/html body"],
    },
    {
      name: "a content type with parameters is accepted",
      s: passthrough,
      res: json('["value1","value2"]', 200, "application/json; charset=utf-8"),
      expected: [],
    },
    {
      name: "wrong content type and body",
      s: passthrough,
      res: json("hello", 200, "text/plain"),
      expected: [
        "content type text/plain (expected application/json)",
        'body "hello" (expected "[\\"value1\\",\\"value2\\"]")',
        "5-byte body (expected about 19 bytes, +-25%)",
      ],
    },
    {
      name: "a body within 25% of the declared size",
      s: lookup,
      res: json(`{"name":"${"x".repeat(2600)}"}`),
      expected: [],
    },
    {
      name: "a body too small and without the expected text",
      s: lookup,
      res: json(`{"other":1}`),
      expected: ['body does not contain "\\"name\\""', "11-byte body (expected about 3400 bytes, +-25%)"],
    },
    {
      name: "no content type at all",
      s: passthrough,
      res: json('["value1","value2"]', 200, ""),
      expected: ["content type (none) (expected application/json)"],
    },
    {
      name: "several accepted statuses",
      s: scenario({ check: { status: [200, 204] } }),
      res: json("", 500, ""),
      expected: ["500 (expected 200 or 204), 0-byte no content type body"],
    },
  ];
  it.each(cases)("$name", ({ s, res, expected }) => {
    expect(responseProblems(s, "GET", res)).toEqual(expected);
  });

  it("does not judge the body of a HEAD response", () => {
    expect(responseProblems(scenario(), "HEAD", json(""))).toEqual([]);
  });
});

describe("probe against a real nginx", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server.stop();
  });

  it.each(["passthrough", "json-lookup"])("the shipped %s scenario passes", async (name) => {
    const { manifest } = await loadScenario(name);
    const result = await probe(server.baseUrl, manifest);
    expect(result.reasons).toEqual([]);
    expect(result.ok).toBe(true);
    expect(Object.keys(result.statusCodes)).toEqual(["200"]);
  });

  it("a missing route: the status, the size and the type of the error page", async () => {
    const s = scenario({ requests: [{ path: "/missing" }] });
    const result = await probe(server.baseUrl, s);
    expect(result.ok).toBe(false);
    expect(result.statusCodes).toEqual({ "404": 3 });
    expect(result.reasons).toHaveLength(1);
    expect(result.reasons[0]).toMatch(/^GET \/missing: 404 \(expected 200\), \d+-byte text\/html body$/);
  });

  it("a closed port: no response, status 0", async () => {
    const port = await freePort();
    const result = await probe(`http://127.0.0.1:${port}`, scenario());
    expect(result.ok).toBe(false);
    expect(result.statusCodes).toEqual({ "0": 3 });
    expect(result.reasons).toEqual(["GET /api/values: no response (ECONNREFUSED)"]);
  });
});

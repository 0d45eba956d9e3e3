import path from "node:path";
import { describe, expect, it } from "vitest";
import { readResults } from "../../../../src/results/io.js";
import {
  isOn,
  parityContext,
  parityWarnings,
  proxyTunings,
  renderParitySection,
  workerCount,
  type ProxyTuning,
} from "../../../../src/measures/study/parity.js";

const NGINX: ProxyTuning = {
  proxy: "nginx",
  tuning: { workers: "cores", upstreamKeepalive: 256, accessLog: false, workerConnections: 8192 },
};
const HAPROXY: ProxyTuning = {
  proxy: "haproxy",
  tuning: { workers: "cores", upstreamKeepalive: "always", accessLog: false, maxConnections: 8000 },
};
const with_ = (p: ProxyTuning, tuning: ProxyTuning["tuning"]): ProxyTuning => ({
  proxy: p.proxy,
  tuning: { ...p.tuning, ...tuning },
});

describe("parityWarnings", () => {
  const cases: Array<{
    name: string;
    proxies: ProxyTuning[];
    cores?: number;
    concurrency?: number;
    warnings: RegExp[];
  }> = [
    { name: "the built-in nginx and haproxy are on par", proxies: [NGINX, HAPROXY], warnings: [] },
    {
      name: "a fixed worker count that is not the cores",
      proxies: [with_(NGINX, { workers: 4 }), HAPROXY],
      warnings: [/nginx runs 4 worker\(s\) on 1 pinned core\(s\)/],
    },
    {
      name: "a fixed worker count equal to the cores",
      proxies: [with_(NGINX, { workers: 2 }), HAPROXY],
      cores: 2,
      warnings: [],
    },
    {
      name: "workers sized by the proxy itself",
      proxies: [with_(NGINX, { workers: "auto" }), HAPROXY],
      warnings: [/nginx sizes its workers itself \(auto\)/],
    },
    {
      name: "upstream keep-alive on for one, off for another",
      proxies: [NGINX, with_(HAPROXY, { upstreamKeepalive: "never" })],
      warnings: [/upstream keep-alive is on for nginx and off for haproxy/],
    },
    {
      name: "keep-alive off as a number",
      proxies: [with_(NGINX, { upstreamKeepalive: 0 }), HAPROXY],
      warnings: [/on for haproxy and off for nginx/],
    },
    {
      name: "access log on for one",
      proxies: [with_(NGINX, { accessLog: true }), HAPROXY],
      warnings: [/the access log is on for nginx only/],
    },
    {
      name: "a proxy that does not record a key",
      proxies: [NGINX, { proxy: "caddy", tuning: { workers: "cores", upstreamKeepalive: 256 } }],
      warnings: [/caddy does not record accessLog/],
    },
    {
      name: "a connection limit below the load's concurrency",
      proxies: [NGINX, HAPROXY],
      concurrency: 10000,
      warnings: [
        /nginx workerConnections is 8192, below the 10000/,
        /haproxy maxConnections is 8000, below the 10000/,
      ],
    },
    { name: "a connection limit above it", proxies: [NGINX, HAPROXY], concurrency: 1000, warnings: [] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const warnings = parityWarnings(c.proxies, { proxyCores: c.cores ?? 1, concurrency: c.concurrency });
      expect(warnings).toHaveLength(c.warnings.length);
      c.warnings.forEach((w, i) => expect(warnings[i]).toMatch(w));
    });
  }
});

describe("values", () => {
  const on: Array<[Parameters<typeof isOn>[0], boolean | undefined]> = [
    [true, true],
    [false, false],
    [256, true],
    [0, false],
    ["always", true],
    ["never", false],
    ["off", false],
    [undefined, undefined],
  ];
  for (const [v, expected] of on)
    it(`isOn(${String(v)}) = ${String(expected)}`, () => expect(isOn(v)).toBe(expected));
  it("workerCount", () => {
    expect(workerCount("cores", 3)).toBe(3);
    expect(workerCount(4, 1)).toBe(4);
    expect(workerCount("2", 1)).toBe(2);
    expect(workerCount("auto", 1)).toBe("auto");
    expect(workerCount(undefined, 1)).toBeUndefined();
  });
});

describe("from a real run", () => {
  it("llrp: haproxy, nginx and caddy side by side, on par", async () => {
    const results = await readResults(
      path.join(import.meta.dirname, "..", "..", "..", "fixtures", "studies", "llrp.results.json"),
    );
    expect(proxyTunings(results).map((p) => p.proxy)).toEqual(["haproxy", "nginx", "caddy"]);
    expect(parityContext(results)).toEqual({ proxyCores: 1, concurrency: 256 });
    const md = renderParitySection(results, 3) ?? "";
    expect(md).toMatch(/^### Config parity/);
    expect(md).toMatch(/\| upstreamKeepalive +\| always +\| 256 +\| 256 +\|/);
    expect(md).toContain("No difference that skews the comparison.");
  });

  it("a run whose proxies differ gets the warnings under the table", async () => {
    const results = structuredClone(
      await readResults(
        path.join(import.meta.dirname, "..", "..", "..", "fixtures", "studies", "llrp.results.json"),
      ),
    );
    const caddy = results.cells.find((c) => c.proxy === "caddy")!;
    caddy.tuning = { ...caddy.tuning, accessLog: true, upstreamKeepalive: false };
    const md = renderParitySection(results, 3) ?? "";
    expect(md).toContain("Differences that skew the comparison:");
    expect(md).toMatch(/- ⚠️ upstream keep-alive is on for haproxy, nginx and off for caddy/);
    expect(md).toMatch(/- ⚠️ the access log is on for caddy only/);
  });
});

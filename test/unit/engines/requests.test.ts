import { describe, expect, it } from "vitest";
import { expandRequests } from "../../../src/engines/requests.js";
import { scenario } from "../../support/engines/manifests.js";

describe("expandRequests", () => {
  const cases: {
    name: string;
    requests: unknown[];
    expected: { method: string; path: string; name: string }[];
  }[] = [
    {
      name: "a plain request",
      requests: [{ path: "/api/values" }],
      expected: [{ method: "GET", path: "/api/values", name: "/api/values" }],
    },
    {
      name: "one var, in declaration order",
      requests: [{ path: "/countries/{code}", vars: { code: ["us", "fr", "de"] } }],
      expected: [
        { method: "GET", path: "/countries/us", name: "/countries/{code}" },
        { method: "GET", path: "/countries/fr", name: "/countries/{code}" },
        { method: "GET", path: "/countries/de", name: "/countries/{code}" },
      ],
    },
    {
      name: "two vars: the cartesian product",
      requests: [{ method: "POST", path: "/{a}/{b}", vars: { a: ["x", "y"], b: ["1", "2"] } }],
      expected: [
        { method: "POST", path: "/x/1", name: "/{a}/{b}" },
        { method: "POST", path: "/x/2", name: "/{a}/{b}" },
        { method: "POST", path: "/y/1", name: "/{a}/{b}" },
        { method: "POST", path: "/y/2", name: "/{a}/{b}" },
      ],
    },
    {
      name: "a var used twice, and values that need encoding",
      requests: [{ path: "/{q}?again={q}", vars: { q: ["a b"] } }],
      expected: [{ method: "GET", path: "/a%20b?again=a%20b", name: "/{q}?again={q}" }],
    },
    {
      name: "a var the path does not use changes nothing",
      requests: [{ path: "/static", vars: { unused: ["1", "2"] } }, { path: "/second" }],
      expected: [
        { method: "GET", path: "/static", name: "/static" },
        { method: "GET", path: "/second", name: "/second" },
      ],
    },
  ];
  it.each(cases)("$name", ({ requests, expected }) => {
    const out = expandRequests(scenario({ requests }));
    expect(out.map(({ method, path, name }) => ({ method, path, name }))).toEqual(expected);
  });

  it("keeps headers and body", () => {
    const [r] = expandRequests(
      scenario({ requests: [{ method: "PUT", path: "/x", headers: { a: "b" }, body: "{}" }] }),
    );
    expect(r).toEqual({ method: "PUT", path: "/x", name: "/x", headers: { a: "b" }, body: "{}" });
  });
});

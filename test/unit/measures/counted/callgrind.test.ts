import { describe, expect, it } from "vitest";
import {
  baseName,
  cycleEstimate,
  CYCLE_WEIGHTS,
  parseCallgrind,
} from "../../../../src/measures/counted/callgrind.js";

// A small profile in callgrind's format, with name compression, a recursive context (main'2),
// a call to itself, and line subpositions (+N, -N, *).
const PROFILE = `# callgrind format
version: 1
creator: callgrind-3.19.0
positions: line
events: Ir Dr
summary: 0

ob=(1) /usr/sbin/proxy
fl=(1) proxy.c
fn=(1) main
10 100 10
+1 50 5
cfl=(1)
cfn=(2) helper
calls=2 20
* 300 30
cfn=(3) main'2
calls=1 10
* 80 8

fn=(2)
20 200 20
cob=(2) /usr/lib/libc.so.6
cfi=(2) memcpy.c
cfn=(4) memcpy
calls=4 1
-1 100 10

fn=(3)
10 40 4
cfn=(1)
calls=1 10
12 40 4

ob=(2)
fl=(2)
fn=(4)
1 100
totals: 570 57
`;

describe("parseCallgrind", () => {
  const profile = parseCallgrind(PROFILE);
  const fn = (name: string) => profile.functions.find((f) => f.name === name);

  it("reads the events and the totals line", () => {
    expect(profile.events).toEqual(["Ir", "Dr"]);
    expect(profile.totals).toEqual([570, 57]);
  });

  it("adds a function's self cost over its recursive contexts, resolving compressed names", () => {
    expect(fn("main")?.self).toEqual([100 + 50 + 40, 10 + 5 + 4]);
    expect(fn("helper")?.self).toEqual([200, 20]);
    expect(fn("memcpy")?.self).toEqual([100, 0]);
    expect(fn("main")?.object).toBe("proxy");
    expect(fn("memcpy")?.object).toBe("libc.so.6");
  });

  it("inclusive cost: self plus calls to other functions, a call to itself counted once", () => {
    expect(fn("main")?.inclusive).toEqual([190 + 300, 19 + 30]);
    expect(fn("helper")?.inclusive).toEqual([300, 30]);
    expect(fn("memcpy")?.inclusive).toEqual([100, 0]);
    // The whole program: main's inclusive cost equals the sum of every self cost.
    const selfSum = profile.functions.reduce((s, f) => s + (f.self[0] ?? 0), 0);
    expect(fn("main")?.inclusive[0]).toBe(selfSum);
  });

  it("sums the self costs when there is no totals line", () => {
    const p = parseCallgrind(PROFILE.replace("totals: 570 57\n", ""));
    expect(p.totals).toEqual([490, 39]);
  });

  it("refuses a file that is not a profile", () => {
    expect(() => parseCallgrind("hello\n")).toThrow(/no 'events:' line/);
  });

  it("strips the recursion suffix only", () => {
    expect(baseName("f'2")).toBe("f");
    expect(baseName("operator'")).toBe("operator'");
  });
});

describe("cycleEstimate", () => {
  it("weights L1 misses by 10 and last-level misses by 100", () => {
    const events = ["Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw"];
    const est = cycleEstimate(events, [1000, 0, 0, 1, 2, 3, 1, 1, 1]);
    expect(est).toBe(1000 + CYCLE_WEIGHTS.l1Miss * 6 + CYCLE_WEIGHTS.llMiss * 3);
    expect(est).toBe(1360);
  });

  it("is undefined without the cache simulation", () => {
    expect(cycleEstimate(["Ir"], [1000])).toBeUndefined();
  });
});

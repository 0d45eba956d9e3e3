import { existsSync } from "node:fs";
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execOutput } from "../../../../src/environment/exec.js";
import { parseCallgrind } from "../../../../src/measures/counted/callgrind.js";
import { runCountedCompare } from "../../../../src/commands/compare.js";
import { compareCountedRuns, compareCountedVariants } from "../../../../src/measures/counted/compare.js";
import { runInstructions } from "../../../../src/measures/counted/run.js";
import { InstructionsResults } from "../../../../src/measures/counted/schema.js";
import { PROJECT_ROOT } from "../../../../src/util/paths.js";
import { liveProcesses } from "../../../../src/util/processes.js";
import { processesMentioning } from "../../../support/runner/helpers.js";

// Real upstream, nginx and haproxy under valgrind: a few hundred requests each, about 20 s.
const cpus = os.cpus().length >= 2 ? "loadgen=0,proxy=1,upstream=1" : "loadgen=0,proxy=0,upstream=0";
const quiet = () => undefined;

/** A scenario folder: passthrough's request with the given expected body. */
async function scenarioDir(root: string, name: string, body: string): Promise<void> {
  await mkdir(path.join(root, name), { recursive: true });
  const yml = [
    `name: ${name}`,
    "description: GET /api/values.",
    `script: ${JSON.stringify(path.join(PROJECT_ROOT, "scenarios", "passthrough", "script.js"))}`,
    "requests:",
    "  - path: /api/values",
    "check:",
    "  status: [200]",
    `  bodyEquals: '${body}'`,
    "loads:",
    "  - label: default",
    "    model: constant-vus",
    "    vus: 1",
    "",
  ].join("\n");
  await writeFile(path.join(root, name, "scenario.yml"), yml);
}

// Valgrind runs a proxy about fifty times slower, and this project runs beside lint and other
// process tests on a shared machine: each counted run gets three minutes, not the default one.
describe("proxybench count with real proxies under valgrind", { timeout: 180_000 }, () => {
  let tmp: string;
  beforeAll(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), "pb-instr-"));
    await scenarioDir(path.join(tmp, "scenarios"), "values", '["value1","value2"]');
    await scenarioDir(path.join(tmp, "scenarios"), "wrong-body", '["other"]');
    // A proxy without an 'instructions' section: a copy of nginx's folder minus that section.
    const copy = path.join(tmp, "proxies", "nginx-plain");
    await cp(path.join(PROJECT_ROOT, "proxies", "nginx"), copy, { recursive: true });
    const yml = await readFile(path.join(copy, "proxy.yml"), "utf8");
    await writeFile(
      path.join(copy, "proxy.yml"),
      yml.replace("name: nginx", "name: nginx-plain").replace(/^instructions:\n( {2}.*\n)+/m, ""),
    );
  });
  afterAll(async () => {
    await rm(tmp, { recursive: true, force: true });
  });

  it("counts nginx and haproxy per request, keeps the raw files, skips what cannot run", async () => {
    const out = path.join(tmp, "ok");
    const { exitCode, results } = await runInstructions({
      proxies: ["direct", "nginx", "haproxy", "nginx-plain"],
      scenarios: ["values"],
      scenariosDirs: [path.join(tmp, "scenarios")],
      proxiesDirs: [path.join(tmp, "proxies")],
      repetitions: 2,
      requests: 200,
      warmupRequests: 20,
      cpus,
      out,
      log: quiet,
    });
    expect(exitCode).toBe(0);
    expect(results.skipped.map((s) => s.proxy)).toEqual(["direct", "nginx-plain"]);
    expect(results.skipped[1]?.reason).toMatch(/nginx-plain\/proxy\.yml: no 'instructions' section/);
    const onDisk = InstructionsResults.parse(
      JSON.parse(await readFile(path.join(out, "instructions.json"), "utf8")),
    );
    expect(onDisk.cells.map((c) => `${c.id} ${c.status}`)).toEqual(["values/nginx ok", "values/haproxy ok"]);
    for (const cell of onDisk.cells) {
      expect(cell.repetitions).toHaveLength(2);
      const [a, b] = cell.repetitions.map((r) => r.instructionsPerRequest ?? 0);
      expect(a).toBeGreaterThan(1000);
      expect(Math.abs((a ?? 0) - (b ?? 0)) / (a ?? 1)).toBeLessThan(0.01);
      for (const r of cell.repetitions) {
        expect(r.requests).toBe(200);
        expect(r.statusCodes).toEqual({ "200": 200 });
        expect(r.cyclesPerRequest).toBeGreaterThan(r.instructionsPerRequest ?? Infinity);
        expect(existsSync(path.join(out, r.callgrindFile ?? "missing"))).toBe(true);
      }
    }
    expect(await readFile(path.join(out, "instructions.md"), "utf8")).toMatch(/\| nginx \| [\d,.]+ \|/);
    expect(liveProcesses()).toEqual([]);
    expect(processesMentioning(out)).toEqual([]);
  });

  it("the parser agrees with callgrind_annotate on a real profile", async () => {
    const file = path.join(tmp, "ok", "raw", "values-nginx-rep1.callgrind.out");
    const profile = parseCallgrind(await readFile(file, "utf8"));
    const selfSum = profile.functions.reduce((s, f) => s + (f.self[0] ?? 0), 0);
    expect(selfSum).toBe(profile.totals[0]);
    const { output } = await execOutput("callgrind_annotate", ["--threshold=100", file]);
    // Lines like "  1,234 (12.3%)  ???:ngx_foo [/usr/sbin/nginx]": the self Ir of each function.
    const rows = [...output.matchAll(/^\s*([\d,]+) \([\d. ]+%\)\s.*?\s\S*:(\S+) \[/gm)].slice(0, 5);
    expect(rows.length).toBeGreaterThan(0);
    for (const [, ir, name] of rows) {
      const fn = profile.functions.find((f) => f.name === name);
      expect(fn?.self[0], name).toBe(Number(ir?.replace(/,/g, "")));
    }
  });

  // Five headers (about +7%): far above the spread of 200-request repetitions, in which one more
  // second boundary (nginx formats its cached time again) moves a repetition by about 0.3%.
  it("compare: headers added to nginx are more work, found in nginx's script code; A/A is never a change", async () => {
    const headerDir = path.join(tmp, "with-header");
    await cp(path.join(PROJECT_ROOT, "proxies", "nginx"), path.join(headerDir, "nginx"), { recursive: true });
    const conf = path.join(headerDir, "nginx", "nginx.conf");
    const text = await readFile(conf, "utf8");
    await writeFile(
      conf,
      text.replace("proxy_set_header Host $http_host;", `$&${" proxy_set_header X-A a;".repeat(5)}`),
    );
    const head = path.join(tmp, "head");
    await runInstructions({
      proxies: ["nginx"],
      scenarios: ["values"],
      scenariosDirs: [path.join(tmp, "scenarios")],
      proxiesDirs: [headerDir],
      repetitions: 2,
      requests: 200,
      warmupRequests: 20,
      cpus,
      out: head,
      log: quiet,
    });
    const base = path.join(tmp, "ok");
    const c = await compareCountedRuns(base, head);
    expect(c.notCompared).toEqual([{ id: "values/haproxy", why: "only in base" }]);
    const [ir] = c.cells[0]?.metrics ?? [];
    expect(ir?.label).toBe("Instructions/request");
    expect(ir?.verdict).toBe("more-work");
    expect(ir?.changePct).toBeGreaterThan(0.5);
    const self = c.cells[0]?.where?.self ?? [];
    expect(self.length).toBeGreaterThan(0);
    expect(self.length).toBeLessThanOrEqual(10);
    expect(self.find((f) => f.name === "ngx_http_script_copy_code")?.delta).toBeGreaterThan(0);

    // The same runs on both sides: never a change (a wide spread may leave it inconclusive).
    const same = await compareCountedRuns(base, base);
    const verdicts = same.cells.flatMap((cell) =>
      cell.metrics.map((m) => `${cell.id} ${m.label} ${m.verdict}`),
    );
    expect(verdicts.filter((v) => /more-work|less-work/.test(v))).toEqual([]);
    expect(verdicts).toHaveLength(4);
    const out = path.join(tmp, "compare.md");
    expect(await runCountedCompare([base, head], { failOnRegression: true, out })).toBe(1);
    expect(await readFile(out, "utf8")).toMatch(/more work.*\n[\s\S]*<details>/);
    expect(await runCountedCompare([base, head], { floor: "50", out })).toBe(0);
    await expect(runCountedCompare([base, head], { floor: "x" })).rejects.toThrow(
      /--floor: expected a percentage >= 0, got 'x'/,
    );
  });

  it("variants: base and head counted in ABBA rounds in one run, compared from the one folder", async () => {
    const variant = async (name: string, headers: number) => {
      const dir = path.join(tmp, "variants", name);
      await cp(path.join(PROJECT_ROOT, "proxies", "nginx"), path.join(dir, "proxies", "nginx"), {
        recursive: true,
      });
      const conf = path.join(dir, "proxies", "nginx", "nginx.conf");
      const text = await readFile(conf, "utf8");
      const added = " proxy_set_header X-A a;".repeat(headers);
      await writeFile(conf, text.replace("proxy_set_header Host $http_host;", `$&${added}`));
      return { name, dir };
    };
    const out = path.join(tmp, "variant-run");
    const { exitCode, results } = await runInstructions({
      proxies: ["nginx"],
      scenarios: ["values"],
      scenariosDirs: [path.join(tmp, "scenarios")],
      variants: [await variant("base", 0), await variant("head", 5)],
      repetitions: 2,
      requests: 200,
      warmupRequests: 20,
      cpus,
      out,
      log: quiet,
    });
    expect(exitCode).toBe(0);
    expect(results.settings.variants?.map((v) => v.name)).toEqual(["base", "head"]);
    expect(results.cells.map((c) => `${c.id} ${c.variant} ${c.status}`)).toEqual([
      "values/nginx@base base ok",
      "values/nginx@head head ok",
    ]);
    const reps = results.cells.flatMap((c) => c.repetitions);
    const order = [...reps].sort((a, b) => a.startedAt.localeCompare(b.startedAt));
    expect(order.map((r) => `${r.variant}${r.round}`)).toEqual(["base0", "head0", "head1", "base1"]);
    for (const r of reps) expect(existsSync(path.join(out, r.callgrindFile ?? "missing"))).toBe(true);
    expect(reps.map((r) => r.callgrindFile)).toContain("raw/values-nginx@head-rep2.callgrind.out");

    const c = await compareCountedVariants(out);
    expect(c.variants).toEqual({ base: "base", head: "head" });
    expect(c.cells.map((cell) => cell.id)).toEqual(["values/nginx"]);
    expect(c.cells[0]?.metrics[0]?.verdict).toBe("more-work");
    const self = c.cells[0]?.where?.self ?? [];
    expect(self.find((f) => f.name === "ngx_http_script_copy_code")?.delta).toBeGreaterThan(0);
    // Swapped: the same change is less work; a name that is not a variant is an error naming it.
    const swapped = await compareCountedVariants(out, { base: "head", head: "base" });
    expect(swapped.cells[0]?.metrics[0]?.verdict).toBe("less-work");
    await expect(compareCountedVariants(out, { head: "pr" })).rejects.toThrow(
      /--head: no variant 'pr' in this run \(its variants: base, head\)/,
    );
    const md = path.join(tmp, "variants.md");
    expect(await runCountedCompare([out], { failOnRegression: true, out: md })).toBe(1);
    expect(await readFile(md, "utf8")).toMatch(/Variants of one run: head against base[\s\S]*<details>/);
    // The same run without its variants: one folder has nothing to compare, and says so.
    const plain = path.join(tmp, "no-variants");
    await mkdir(plain, { recursive: true });
    const { variants: _, ...settings } = results.settings;
    const cells = results.cells.slice(0, 1).map(({ variant: __, ...cell }) => cell);
    await writeFile(path.join(plain, "instructions.json"), JSON.stringify({ ...results, settings, cells }));
    await expect(runCountedCompare([plain], {})).rejects.toThrow(/holds no variants/);
    // HTML: every changed function (not only the top ten), charted from the variants' files.
    const page = path.join(tmp, "variants.html");
    expect(await runCountedCompare([out], { format: "html", out: page })).toBe(0);
    const html = await readFile(page, "utf8");
    const charted = Number(/Self \(in the function itself\): (\d+) functions/.exec(html)?.[1]);
    const all = await compareCountedVariants(out, { whereTop: Infinity });
    expect(charted).toBe(all.cells[0]?.where?.self.length);
    expect(charted).toBeGreaterThanOrEqual(self.length);
    expect(html).toContain('<canvas id="icicle-0"');
    expect(html).toContain("ngx_http_script_copy_code");
    expect(liveProcesses()).toEqual([]);
  });

  it("variants: one variant alone is refused before anything starts", async () => {
    await expect(
      runInstructions({ variants: [{ name: "base", dir: tmp }], out: path.join(tmp, "none"), log: quiet }),
    ).rejects.toThrow(/--variant: give two or more variants/);
  });

  it("an --out that holds a counted or a wall-clock run is refused, naming the folder", async () => {
    for (const file of ["instructions.json", "results.json"]) {
      const out = path.join(tmp, `used-${file}`);
      await mkdir(out, { recursive: true });
      await writeFile(path.join(out, file), "{}");
      await expect(runInstructions({ proxies: ["nginx"], out, log: quiet })).rejects.toThrow(
        `--out ${out} already holds results; choose another folder`,
      );
    }
  });

  it("a wrong body makes the cell invalid with the reason, and the exit code 1", async () => {
    const { exitCode, results } = await runInstructions({
      proxies: ["nginx"],
      scenarios: ["wrong-body"],
      scenariosDirs: [path.join(tmp, "scenarios")],
      repetitions: 1,
      requests: 10,
      warmupRequests: 0,
      cpus,
      out: path.join(tmp, "invalid"),
      log: quiet,
    });
    expect(exitCode).toBe(1);
    expect(results.cells[0]?.status).toBe("invalid");
    expect(results.cells[0]?.reasons.join(" ")).toMatch(/body "\[\\"value1\\",\\"value2\\"\]" \(expected/);
  });
});

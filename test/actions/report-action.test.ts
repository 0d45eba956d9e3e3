import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startGitHubServer, type GitHubServer } from "../support/github-server.js";
import { actionYml, runReportAction } from "./support/report-action.js";
import { getSettings, pagesUrl } from "../../report/src/input-helper.js";
import { PROJECT_ROOT } from "../../src/util/paths.js";
import { cell, results as buildResults } from "../report/build.js";
import { liveMarkup, visibleText } from "./support/gfm.js";

const FIXTURES = path.join(PROJECT_ROOT, "test", "fixtures", "actions");
const REPO = "octo/proxy-config";
const PR = 7;
const HEAD_SHA = "6d2ddce0741ce7f9f98fbbcd0dad55390364cf64";

let server: GitHubServer;
let dir: string;

beforeAll(async () => {
  server = await startGitHubServer();
  dir = await mkdtemp(path.join(tmpdir(), "pb-report-action-"));
});
afterAll(async () => {
  await server?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const runAction = (withValues: Record<string, string>, event: unknown, name: string) =>
  runReportAction({ dir, apiUrl: server.url, repository: REPO }, withValues, event, name);

const prEvent = {
  action: "synchronize",
  number: PR,
  pull_request: {
    number: PR,
    head: { sha: HEAD_SHA, ref: "feature" },
    base: { sha: "b1083d3df9b4c72e0767d2bfc68eafc3e6b5794a" },
  },
  repository: { full_name: REPO },
};

describe("report action, bundled", () => {
  it("is a node24 action whose committed bundle is the build of report/src", async () => {
    expect(actionYml.runs).toEqual({ using: "node24", main: "dist/index.js" });
    expect(Object.keys(actionYml.outputs).sort()).toEqual(["comment-url", "regressions", "verdict"]);
    // The package's own build command, into a temporary file instead of report/dist/index.js.
    const pkg = JSON.parse(readFileSync(path.join(PROJECT_ROOT, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    };
    const script = pkg.scripts["build:action"] ?? "";
    expect(script).toContain("--outfile=report/dist/index.js");
    const rebuilt = path.join(dir, "index.js");
    const child = spawn(
      "sh",
      ["-c", script.replace("--outfile=report/dist/index.js", `--outfile=${rebuilt}`)],
      {
        cwd: PROJECT_ROOT,
        env: {
          ...process.env,
          PATH: `${path.join(PROJECT_ROOT, "node_modules", ".bin")}:${process.env.PATH ?? ""}`,
        },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let said = "";
    child.stderr.on("data", (c: Buffer) => (said += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(said).toBe("");
    expect(code).toBe(0);
    const committed = await readFile(path.join(PROJECT_ROOT, "report", "dist", "index.js"), "utf8");
    // Not toBe: a 1.7 MB diff would drown the message.
    expect(
      (await readFile(rebuilt, "utf8")) === committed,
      "report/dist/index.js is stale: run npm run build:action",
    ).toBe(true);
  });

  it("comments once on the pull request, updates that comment on the next run, writes the summary and the outputs", async () => {
    server.setPullHead(REPO, PR, HEAD_SHA);
    const inputs = {
      results: path.join(FIXTURES, "head"),
      "base-results": path.join(FIXTURES, "base"),
      token: server.token,
    };
    const first = await runAction(inputs, prEvent, "first");
    expect(first.stdout).not.toMatch(/::error::/);
    expect(first.code).toBe(0);

    const comments = server.comments(REPO, PR);
    expect(comments).toHaveLength(1);
    const [comment] = comments;
    expect(comment!.body).toMatch(/^<!-- proxybench:proxybench -->/);
    expect(comment!.body).toContain(`sha=${HEAD_SHA}`);
    expect(comment!.body).toContain("proxybench compare:");
    expect(comment!.body).toContain("| nginx");

    expect(first.summary).toContain("proxybench compare:");
    expect(first.summary).toContain("Requests/sec");

    expect(["regressed", "improved", "unchanged", "inconclusive"]).toContain(first.outputs.verdict);
    expect(first.outputs.regressions).toMatch(/^\d+$/);
    expect(first.outputs["comment-url"]).toBe(comment!.html_url);

    const second = await runAction(inputs, prEvent, "second");
    expect(second.code).toBe(0);
    const after = server.comments(REPO, PR);
    expect(after).toHaveLength(1);
    expect(after[0]!.id).toBe(comment!.id);
    expect(
      server.requests.filter((r) => r.method === "PATCH" && r.path.endsWith(`/comments/${comment!.id}`)),
    ).toHaveLength(1);
    expect(server.requests.filter((r) => r.method === "POST" && r.path.endsWith("/comments"))).toHaveLength(
      1,
    );
    expect(server.requests.every((r) => r.authorized)).toBe(true);
    expect(second.outputs["comment-url"]).toBe(comment!.html_url);
  });

  it("shows where it was measured in the comment, and links the artifact and the chart in the summary", async () => {
    const pr = PR + 1;
    const event = { ...prEvent, number: pr, pull_request: { ...prEvent.pull_request, number: pr } };
    const run = await runAction(
      {
        results: path.join(FIXTURES, "head"),
        "base-results": path.join(FIXTURES, "base"),
        token: server.token,
        "runner-name": "bench-01",
        "artifact-url": "https://github.test/octo/proxy-config/actions/runs/4242/artifacts/77",
        "gh-pages-dir": "dev/bench",
      },
      event,
      "links",
    );
    expect(run.stdout).not.toMatch(/::error::/);
    expect(run.code).toBe(0);
    // From the head's results.json: AMD EPYC, 2 cores, loadgen=0, proxy=1, upstream=1.
    const line =
      "Measured on **bench-01** (AMD EPYC, 2 cores); cores: load generator 0, proxy 1, upstream 1.";
    expect(server.comments(REPO, pr)[0]?.body).toContain(line);
    expect(run.summary).toContain(line);
    expect(run.summary).toContain(
      "[results artifact](https://github.test/octo/proxy-config/actions/runs/4242/artifacts/77)",
    );
    // GITHUB_SERVER_URL is not github.com here: the Enterprise Server address of Pages.
    expect(run.summary).toContain("[history chart](https://github.test/pages/octo/proxy-config/dev/bench/)");
    expect(run.summary).toContain("[this run](https://github.test/octo/proxy-config/actions/runs/4242)");
  });

  it("warns and succeeds when the token may not comment (a fork's or Dependabot's read-only token)", async () => {
    const pr = PR + 2;
    const event = { ...prEvent, number: pr, pull_request: { ...prEvent.pull_request, number: pr } };
    server.fail({
      method: "POST",
      path: new RegExp(`/issues/${pr}/comments$`),
      status: 403,
      body: { message: "Resource not accessible by integration" },
    });
    const run = await runAction(
      {
        results: path.join(FIXTURES, "head"),
        "base-results": path.join(FIXTURES, "base"),
        token: server.token,
      },
      event,
      "read-only",
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/::warning::the token may not comment on this pull request/);
    expect(run.stdout).toContain("Resource not accessible by integration");
    expect(run.outputs["comment-url"]).toBe("");
    expect(run.summary).toContain("proxybench compare:");
    expect(server.comments(REPO, pr)).toEqual([]);
  });

  it("one run holding base and head as variants: paired by round, and says so with the runner", async () => {
    const pr = PR + 3;
    const event = { ...prEvent, number: pr, pull_request: { ...prEvent.pull_request, number: pr } };
    const rounds = (p50: number) =>
      Array.from({ length: 10 }, (_, i) => ({ rps: 1000, p50: p50 * (1 + i / 100) }));
    const run = buildResults([
      cell("nginx", rounds(5), { variant: "base" }),
      cell("nginx", rounds(6), { variant: "head" }),
    ]);
    run.settings.variants = [
      { name: "base", dir: "/w/base", imageTag: "pb-base" },
      { name: "head", dir: "/w/head", imageTag: "pb-head" },
    ];
    run.environment.hostname = "bench-host";
    const runDir = path.join(dir, "variant-run");
    await mkdir(runDir, { recursive: true });
    await writeFile(path.join(runDir, "results.json"), JSON.stringify(run));
    const outcome = await runAction(
      { results: runDir, token: server.token, "runner-name": "bench-02" },
      event,
      "variants",
    );
    expect(outcome.stdout).not.toMatch(/::error::/);
    expect(outcome.code).toBe(0);
    const body = server.comments(REPO, pr)[0]?.body ?? "";
    expect(body).toContain("Base and head paired over 10 rounds on **bench-02**");
    expect(body).toContain("p50 latency (ms)");
    // Head's p50 is 20% above the base's in every round: a regression, found without a base-results.
    expect(outcome.outputs.verdict).toBe("regressed");
    expect(Number(outcome.outputs.regressions)).toBeGreaterThan(0);
    expect(outcome.summary).toContain("paired over 10 rounds");
  });

  it("the shards of one run, downloaded side by side: merged, each runner named with its cells", async () => {
    const pr = PR + 4;
    const event = { ...prEvent, number: pr, pull_request: { ...prEvent.pull_request, number: pr } };
    const rounds = (p50: number) =>
      Array.from({ length: 10 }, (_, i) => ({ rps: 1000, p50: p50 * (1 + i / 100) }));
    const downloads = path.join(dir, "shards");
    for (const [i, proxy] of ["nginx", "haproxy"].entries()) {
      const run = buildResults([
        cell(proxy, rounds(5), { variant: "base" }),
        cell(proxy, rounds(5), { variant: "head" }),
      ]);
      run.settings.proxies = ["nginx", "haproxy"];
      run.settings.variants = [
        { name: "base", dir: "/w/base" },
        { name: "head", dir: "/w/head" },
      ];
      run.settings.shard = { index: i + 1, count: 2 };
      run.environment.hostname = `bench-${i + 1}`;
      // download-artifact with a pattern: one folder per artifact.
      const shardDir = path.join(downloads, `proxybench-results-${i + 1}`);
      await mkdir(shardDir, { recursive: true });
      await writeFile(path.join(shardDir, "results.json"), JSON.stringify(run));
    }
    const outcome = await runAction({ results: downloads, token: server.token }, event, "shards");
    expect(outcome.stdout).not.toMatch(/::error::/);
    expect(outcome.code).toBe(0);
    const body = server.comments(REPO, pr)[0]?.body ?? "";
    expect(body).toContain(
      "Base and head paired over 10 rounds on 2 runners, each cell's pairs on one machine: **bench-1** (2 cells), **bench-2** (2 cells).",
    );
    expect(outcome.outputs.verdict).toBe("unchanged");

    // The same shards named one per line.
    const listed = await runAction(
      {
        results: `${path.join(downloads, "proxybench-results-1")}\n${path.join(downloads, "proxybench-results-2")}`,
        comment: "false",
        token: "",
      },
      { action: "push" },
      "shards-listed",
    );
    expect(listed.code).toBe(0);
    expect(listed.summary).toContain("on 2 runners");
  });

  describe("text from the results file reaches the comment and the summary inert", () => {
    // The host name, and every other string a results.json carries.
    const HOSTNAME = "@octocat [approve here](https://evil.example) <img src=x>";
    const CPU = "EPYC @acme/maintainers #1 www.evil.example";
    const PROXY = "nginx | @octocat <script>x</script>";
    const SCENARIO = "small ![i](https://evil.example/i.png)";
    const REASON = "see https://evil.example\n| forged | row |\n<details open>";
    const RUN_URL = "https://github.test/octo/proxy-config/actions/runs/4242";

    function hostileRun(hostname: string) {
      const rounds = (p50: number) =>
        Array.from({ length: 10 }, (_, i) => ({ rps: 1000, p50: p50 * (1 + i / 100) }));
      const run = buildResults(
        [
          cell(PROXY, rounds(5), { variant: "base", scenario: SCENARIO, load: "`load`" }),
          cell(PROXY, rounds(6), { variant: "head", scenario: SCENARIO, load: "`load`" }),
          cell("haproxy", rounds(5), { variant: "base", scenario: SCENARIO, load: "`load`" }),
          cell("haproxy", [], {
            variant: "head",
            scenario: SCENARIO,
            load: "`load`",
            status: "failed",
            reasons: [REASON],
          }),
        ],
        { skipped: [{ proxy: "envoy @octocat", reason: REASON }] },
      );
      run.settings.variants = [
        { name: "base", dir: "/w/base" },
        { name: "head", dir: "/w/head" },
      ];
      run.environment.hostname = hostname;
      run.environment.cpuModel = CPU;
      run.environment.git = {
        commit: HEAD_SHA,
        branch: "feature/@octocat",
        message: "fix #1 [x](https://evil.example)",
      };
      return run;
    }

    it("one run: the host name, the CPU, proxies, scenarios and reasons are shown as written, nothing live", async () => {
      const pr = PR + 10;
      const event = { ...prEvent, number: pr, pull_request: { ...prEvent.pull_request, number: pr } };
      const runDir = path.join(dir, "hostile-run");
      await mkdir(runDir, { recursive: true });
      await writeFile(path.join(runDir, "results.json"), JSON.stringify(hostileRun(HOSTNAME)));
      const outcome = await runAction({ results: runDir, token: server.token }, event, "hostile");
      expect(outcome.stdout).not.toMatch(/::error::/);
      expect(outcome.code).toBe(0);
      const body = server.comments(REPO, pr)[0]?.body ?? "";
      expect(body).toContain("proxybench compare:");
      expect(liveMarkup(body)).toEqual([]);
      expect(liveMarkup(outcome.summary, [RUN_URL])).toEqual([]);
      const shown = visibleText(body);
      expect(shown).toContain(`Measured on ${HOSTNAME} (${CPU}, 2 cores)`);
      expect(shown).toContain(`on ${HOSTNAME}, interleaved on the same cores`);
      for (const text of [PROXY, SCENARIO, REASON.replace(/\n/g, " "), "envoy @octocat"])
        expect(shown).toContain(text);
    });

    it("shards: each runner's host name is shown as written, nothing live", async () => {
      const pr = PR + 11;
      const event = { ...prEvent, number: pr, pull_request: { ...prEvent.pull_request, number: pr } };
      const downloads = path.join(dir, "hostile-shards");
      const names = [HOSTNAME, "bench-2 | **@octocat**"];
      for (const [i, name] of names.entries()) {
        const run = hostileRun(name);
        // Shard 1 measured the crafted proxy, shard 2 haproxy.
        run.cells = run.cells.filter((c) => (c.proxy === PROXY) === (i === 0));
        run.settings.shard = { index: i + 1, count: 2 };
        const shardDir = path.join(downloads, `proxybench-results-${i + 1}`);
        await mkdir(shardDir, { recursive: true });
        await writeFile(path.join(shardDir, "results.json"), JSON.stringify(run));
      }
      const outcome = await runAction({ results: downloads, token: server.token }, event, "hostile-shards");
      expect(outcome.stdout).not.toMatch(/::error::/);
      expect(outcome.code).toBe(0);
      const body = server.comments(REPO, pr)[0]?.body ?? "";
      expect(body).toContain("on 2 runners");
      expect(liveMarkup(body)).toEqual([]);
      expect(liveMarkup(outcome.summary, [RUN_URL])).toEqual([]);
      expect(visibleText(body)).toContain(`one machine: ${names[0]} (2 cells), ${names[1]} (2 cells).`);
    });
  });

  it("without a base: the tables alone, no verdict", async () => {
    const run = await runAction(
      { results: path.join(FIXTURES, "head"), comment: "false", token: "" },
      { action: "push" },
      "no-base",
    );
    expect(run.code).toBe(0);
    expect(run.summary).toContain("Requests/sec");
    expect(run.summary).not.toContain("proxybench compare:");
    expect(run.outputs).toMatchObject({ verdict: "", regressions: "0", "comment-url": "" });
  });

  it("fails the step on a bad input, naming it", async () => {
    const run = await runAction(
      { results: path.join(FIXTURES, "head"), threshold: "five", token: server.token },
      prEvent,
      "bad-input",
    );
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("::error::input 'threshold': expected a percentage >= 0, got 'five'");
  });

  it("fails the step on results that are not valid, naming the file", async () => {
    await writeFile(path.join(dir, "bad-results.json"), '{"schemaVersion": 1}');
    const run = await runAction(
      { results: path.join(dir, "bad-results.json"), comment: "false" },
      prEvent,
      "bad-results",
    );
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/::error::.*bad-results\.json/);
  });
});

describe("getSettings", () => {
  const defaults: Record<string, string> = Object.fromEntries(
    Object.entries(actionYml.inputs).map(([k, v]) => [
      k,
      (v.default ?? "").includes("${{") ? "" : (v.default ?? ""),
    ]),
  );
  const env = { GITHUB_REPOSITORY: "o/r", GITHUB_API_URL: "http://127.0.0.1:1" } as NodeJS.ProcessEnv;
  const reader = (values: Record<string, string>) => (name: string) =>
    ({ ...defaults, results: "r", token: "t", ...values })[name] ?? "";

  it("reads the defaults into typed settings", () => {
    expect(getSettings(reader({}), env)).toEqual({
      results: ["r"],
      thresholdPct: 5,
      floorPct: 0.5,
      alpha: 0.05,
      failOnRegression: false,
      comment: true,
      summary: true,
      marker: "proxybench",
      token: "t",
      apiUrl: "http://127.0.0.1:1",
      owner: "o",
      repo: "r",
    });
  });

  it.each<[Record<string, string>, RegExp]>([
    [{ results: "" }, /input 'results': required/],
    [{ threshold: "-1" }, /input 'threshold': expected a percentage >= 0, got '-1'/],
    [{ floor: "x" }, /input 'floor': expected a percentage >= 0, got 'x'/],
    [{ alpha: "1" }, /input 'alpha': expected a number between 0 and 1/],
    [{ comment: "yes" }, /input 'comment': expected true or false, got 'yes'/],
    [{ "fail-on-regression": "1" }, /input 'fail-on-regression'/],
    [{ "pr-number": "abc" }, /input 'pr-number': expected a pull request number/],
    [{ "head-sha": "not-a-sha" }, /input 'head-sha': expected a hexadecimal commit sha/],
    [{ "details-url": "javascript:alert(1)" }, /input 'details-url': expected an http\(s\) URL/],
    [{ marker: "a b" }, /input 'marker'/],
    [{ repository: "nope" }, /input 'repository': expected owner\/name/],
    [{ "artifact-url": "file:///etc" }, /input 'artifact-url': expected an http\(s\) URL/],
    [{ "chart-url": "ftp://x" }, /input 'chart-url': expected an http\(s\) URL/],
    [{ token: "" }, /input 'token': required to comment/],
  ])("%j", (values, error) => {
    expect(() => getSettings(reader(values), env)).toThrow(error);
  });

  it("takes the pull request and the head from a workflow_run event, the input first", async () => {
    const file = path.join(dir, "workflow-run-event.json");
    await writeFile(
      file,
      JSON.stringify({ workflow_run: { head_sha: "abcdef1234", pull_requests: [{ number: 12 }] } }),
    );
    const withEvent = { ...env, GITHUB_EVENT_PATH: file };
    expect(getSettings(reader({}), withEvent)).toMatchObject({ pr: 12, headSha: "abcdef1234" });
    expect(getSettings(reader({ "pr-number": "3" }), withEvent)).toMatchObject({ pr: 3 });
  });
});

describe("pagesUrl", () => {
  it.each<[string, string, string, string, string]>([
    [
      "https://github.com",
      "Octo",
      "proxy-config",
      "dev/bench",
      "https://octo.github.io/proxy-config/dev/bench/",
    ],
    ["https://github.com", "octo", "octo.github.io", "/dev/bench/", "https://octo.github.io/dev/bench/"],
    ["https://github.com/", "octo", "r", "", "https://octo.github.io/r/"],
    ["https://ghe.example.com", "octo", "r", "dev/bench", "https://ghe.example.com/pages/octo/r/dev/bench/"],
  ])("%s %s/%s %s", (server, owner, repo, dir, expected) => {
    expect(pagesUrl(server, owner, repo, dir)).toBe(expected);
  });

  it("a chart-url input wins over gh-pages-dir", () => {
    const read = (values: Record<string, string>) => (name: string) =>
      ({
        results: "r",
        comment: "false",
        summary: "true",
        "fail-on-regression": "false",
        threshold: "5",
        alpha: "0.05",
        ...values,
      })[name] ?? "";
    const env = { GITHUB_REPOSITORY: "o/r", GITHUB_SERVER_URL: "https://github.com" } as NodeJS.ProcessEnv;
    expect(getSettings(read({ "gh-pages-dir": "dev/bench" }), env).chartUrl).toBe(
      "https://o.github.io/r/dev/bench/",
    );
    expect(
      getSettings(read({ "gh-pages-dir": "dev/bench", "chart-url": "https://charts.example/x" }), env)
        .chartUrl,
    ).toBe("https://charts.example/x");
    expect(getSettings(read({}), env).chartUrl).toBeUndefined();
  });
});

describe("findPullRequest", () => {
  it("finds a fork's pull request by its head commit across pages of open pull requests", async () => {
    // A small real server for the one endpoint the shared GitHub server does not speak.
    const pulls = Array.from({ length: 130 }, (_, i) => ({
      number: i + 1,
      head: { sha: (i + 1).toString(16).padStart(40, "0") },
    }));
    const seen: string[] = [];
    const http = await import("node:http");
    const api = http.createServer((req, res) => {
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      seen.push(`${req.method} ${url.pathname}?${url.searchParams.toString()}`);
      if (url.pathname !== "/repos/o/r/pulls" || url.searchParams.get("state") !== "open") {
        res.writeHead(404).end("{}");
        return;
      }
      const page = Number(url.searchParams.get("page") ?? "1");
      const per = Number(url.searchParams.get("per_page") ?? "30");
      const slice = pulls.slice((page - 1) * per, page * per);
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (page * per < pulls.length) {
        headers.link = `<http://127.0.0.1:${(api.address() as { port: number }).port}/repos/o/r/pulls?state=open&per_page=${per}&page=${page + 1}>; rel="next"`;
      }
      res.writeHead(200, headers).end(JSON.stringify(slice));
    });
    await new Promise<void>((resolve) => api.listen(0, "127.0.0.1", resolve));
    try {
      const { createClient } = await import("../../src/github/client.js");
      const { findPullRequest } = await import("../../report/src/report.js");
      const client = createClient({
        token: "t",
        baseUrl: `http://127.0.0.1:${(api.address() as { port: number }).port}`,
      });
      const target = pulls[120]!;
      expect(
        await findPullRequest(client, { owner: "o", repo: "r", headSha: target.head.sha.toUpperCase() }),
      ).toBe(121);
      expect(seen.filter((s) => s.startsWith("GET /repos/o/r/pulls"))).toHaveLength(2);
      expect(
        await findPullRequest(client, { owner: "o", repo: "r", headSha: "f".repeat(40) }),
      ).toBeUndefined();
      // Given a number (input or event), no lookup at all.
      const before = seen.length;
      expect(await findPullRequest(client, { owner: "o", repo: "r", pr: 5, headSha: target.head.sha })).toBe(
        5,
      );
      expect(seen.length).toBe(before);
    } finally {
      await new Promise<void>((resolve) => api.close(() => resolve()));
    }
  });
});

/**
 * The PR comment on a known change (`npm run bench:pr-comment`). Prints figures; asserts nothing.
 *
 * Head = nginx with one more line, `proxy_set_header X-Trace $request_id;`; base = nginx as
 * built in. As bench.yml does on a pull request:
 * (a) counted: N runs (default 10) of `proxybench count` with base and head as
 *     variants, at bench.yml's count-repetitions (3), each turned into the PR comment by the
 *     same code the report action runs (loadCommentRuns + buildPrComment): how many of them say
 *     `regressed`, and the counted change;
 * (b) wall clock, counting off: M runs (default 3) of passthrough with base and head
 *     interleaved, `--repetitions auto --budget B`, each made into the comment: which metrics
 *     were found (regressed), the rounds it took and the wall time to the verdict.
 * Options: --counted N, --wall M, --budget MINUTES (default 4), --lock FILE (each proxybench
 * command runs under `flock FILE`, so other measurements on the machine wait for it).
 */
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { command as proxybench } from "./ab-real-pr.js";
import { loadCommentRuns } from "../src/comment/comment-runs.js";
import { buildPrComment, type PrComment } from "../src/comment/pr-comment.js";
import { PROJECT_ROOT } from "../src/util/paths.js";

const EXTRA_LINE = " proxy_set_header X-Trace $request_id;";

/** base/ and head/ folders, each with proxies/nginx; the head's config has the extra line. */
async function variants(root: string): Promise<{ base: string; head: string }> {
  const out = { base: path.join(root, "base"), head: path.join(root, "head") };
  for (const dir of Object.values(out)) {
    await cp(path.join(PROJECT_ROOT, "proxies", "nginx"), path.join(dir, "proxies", "nginx"), {
      recursive: true,
    });
  }
  const conf = path.join(out.head, "proxies", "nginx", "nginx.conf");
  const text = await readFile(conf, "utf8");
  const changed = text.replace("proxy_set_header Host $http_host;", `$&${EXTRA_LINE}`);
  if (changed === text)
    throw new Error(`${conf}: no 'proxy_set_header Host $http_host;' to add a line after`);
  await writeFile(conf, changed);
  return out;
}

/** The table rows of one section of the comment that found a change (regressed or more work). */
function changedRows(comment: PrComment, section: "counted" | "wallClock"): string[][] {
  const wall = comment.markdown.indexOf("### Wall clock");
  const text =
    section === "counted"
      ? comment.markdown.slice(0, wall < 0 ? undefined : wall)
      : comment.markdown.slice(Math.max(wall, 0));
  return text
    .split("\n")
    .filter((l) => l.startsWith("| ") && /\*\*(regressed|more work)\*\*/.test(l))
    .map((l) => l.split("|").map((c) => c.trim()));
}

async function countedRuns(n: number, dirs: { base: string; head: string }, root: string, lock?: string) {
  let regressed = 0;
  for (let i = 0; i < n; i++) {
    const out = path.join(root, `counted-${i + 1}`);
    const started = performance.now();
    const code = await proxybench(
      ["count", "-p", "nginx", "-s", "passthrough", "-r", "3"].concat([
        "--variant",
        `base=${dirs.base}`,
        "--variant",
        `head=${dirs.head}`,
        "--out",
        out,
      ]),
      lock,
    );
    const seconds = (performance.now() - started) / 1000;
    const comment = buildPrComment(await loadCommentRuns([out]));
    if (comment.verdict === "regressed") regressed += 1;
    const change = changedRows(comment, "counted")[0]?.[5] ?? "no change found";
    console.log(
      `  counted run ${i + 1}: exit ${code}, verdict ${comment.verdict || "none"}, instructions/request ${change}, ${seconds.toFixed(0)} s`,
    );
  }
  console.log(`(a) counted: nginx regressed in ${regressed}/${n} comparisons`);
}

async function wallClockRuns(
  n: number,
  budget: number,
  dirs: { base: string; head: string },
  root: string,
  lock?: string,
) {
  const found: Record<string, number> = {};
  for (let i = 0; i < n; i++) {
    const out = path.join(root, `wall-${i + 1}`);
    const started = performance.now();
    const code = await proxybench(
      ["run", "-p", "nginx", "-s", "passthrough", "--repetitions", "auto", "--budget", String(budget)].concat(
        ["--variant", `base=${dirs.base}`, "--variant", `head=${dirs.head}`, "--out", out],
      ),
      lock,
    );
    const seconds = (performance.now() - started) / 1000;
    const comment = buildPrComment(await loadCommentRuns([out]));
    const rows = changedRows(comment, "wallClock").map((r) => r[2] ?? "?");
    for (const metric of rows) found[metric] = (found[metric] ?? 0) + 1;
    const rounds = /It took (\d+) rounds?/.exec(comment.markdown)?.[1] ?? "?";
    console.log(
      `  wall-clock run ${i + 1}: exit ${code}, verdict ${comment.verdict || "none"}, ` +
        `found: ${rows.length > 0 ? rows.join(", ") : "nothing"}, ${rounds} rounds, ${seconds.toFixed(0)} s to the verdict`,
    );
  }
  const rates = Object.entries(found).map(([m, k]) => `${m} ${k}/${n}`);
  console.log(
    `(b) wall clock, counting off: found ${rates.length > 0 ? rates.join(", ") : `nothing in ${n} runs`}`,
  );
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      counted: { type: "string", default: "10" },
      wall: { type: "string", default: "3" },
      budget: { type: "string", default: "4" },
      lock: { type: "string" },
    },
  });
  const root = await mkdtemp(path.join(os.tmpdir(), "proxybench-bench-pr-"));
  try {
    console.log(
      `PR comment on a known change: ${os.availableParallelism()} cores, ${os.cpus()[0]?.model ?? "?"}`,
    );
    console.log(`head = nginx +${EXTRA_LINE}`);
    const dirs = await variants(root);
    await countedRuns(Number(values.counted), dirs, root, values.lock);
    await wallClockRuns(Number(values.wall), Number(values.budget), dirs, root, values.lock);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

await main();

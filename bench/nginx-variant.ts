import { cp, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { PROJECT_ROOT } from "../src/util/paths.js";

/**
 * A variant folder (`--variant NAME=DIR`) whose nginx is the built-in one with `lines` added to
 * its proxied location, and, when given, `httpLines` to its http block: a config change as a
 * pull request would make it. Shared by `npm run bench:proxy-cost` and the runner's tests.
 */
export async function nginxVariant(
  dir: string,
  lines: readonly string[],
  httpLines: readonly string[] = [],
): Promise<string> {
  const nginxDir = path.join(dir, "proxies", "nginx");
  await cp(path.join(PROJECT_ROOT, "proxies", "nginx"), nginxDir, { recursive: true });
  const file = path.join(nginxDir, "nginx.conf");
  const anchor = "            proxy_set_header Host $http_host;\n";
  const httpAnchor = "    upstream backend {\n";
  const conf = await readFile(file, "utf8");
  if (!conf.includes(anchor) || !conf.includes(httpAnchor)) {
    throw new Error(`${file}: no location or upstream block to extend`);
  }
  const extended = conf
    .replace(anchor, `${anchor}${lines.map((l) => `            ${l}\n`).join("")}`)
    .replace(httpAnchor, `${httpLines.map((l) => `    ${l}\n`).join("")}${httpAnchor}`);
  await writeFile(file, extended);
  return dir;
}

/** One more request header with a per-request id: the change the issue measured. */
export const X_TRACE = ["proxy_set_header X-Trace $request_id;"];

/**
 * Clearly more work per request: a header chosen by a map of `n` regular expressions that never
 * match, each tried on every request.
 */
export function regexMap(n: number): { lines: string[]; httpLines: string[] } {
  const entries = Array.from({ length: n }, (_, i) => `        "~^/never-${i}/(.*)$" route${i};`);
  return {
    httpLines: ["map $request_uri $pb_route {", "        default none;", ...entries, "    }"],
    lines: ["proxy_set_header X-Route $pb_route;"],
  };
}

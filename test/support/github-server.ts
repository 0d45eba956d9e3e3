import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A real HTTP server on 127.0.0.1 speaking enough of GitHub's REST API for sticky comments and
 * pull request heads, with programmable faults and a log of every request. Point octokit (or a
 * GitHub action, through GITHUB_API_URL) at `server.url`.
 *
 *   GET    /repos/{o}/{r}/issues/{n}/comments   per_page (max 100), page, Link header
 *   POST   /repos/{o}/{r}/issues/{n}/comments   {body}, 422 over 65,536 characters
 *   PATCH  /repos/{o}/{r}/issues/comments/{id}  {body}
 *   DELETE /repos/{o}/{r}/issues/comments/{id}
 *   GET    /repos/{o}/{r}/pulls                 state (open|closed|all), per_page, page, Link
 *                                                header; newest first, as GitHub lists them
 *   GET    /repos/{o}/{r}/pulls/{n}             {number, state, head: {sha, ref, repo}, base}
 *   POST   /graphql                             `viewer { login }` only: the token's login
 *   GET    /repos/{o}/{r}/issues                labels (comma-separated, all must match), state
 *                                                (open|closed|all), per_page, page, Link header;
 *                                                newest first; pull requests listed too, as GitHub does
 *   POST   /repos/{o}/{r}/issues                {title, body, labels}, 422 without a title or over
 *                                                65,536 characters of body
 *   PATCH  /repos/{o}/{r}/issues/{n}            {title, body, state}; an issue gets only the labels
 *                                                that exist, the others dropped silently, as GitHub
 *                                                does for a token that may not create them
 *   GET    /repos/{o}/{r}/labels                per_page, page, Link header: those created (or given
 *                                                to an issue by addIssue)
 *   POST   /repos/{o}/{r}/labels                {name, color, description}; 422 if it exists
 *
 * Every request must carry `Authorization: token|bearer <token>`, else 401 Bad credentials.
 */

interface FakeComment {
  id: number;
  body: string;
  user: { login: string; type: string };
  created_at: string;
  updated_at: string;
  html_url: string;
  issue_url: string;
}

/** A pull request: its head is a branch of a repository (a fork's for a fork) at a commit. */
interface FakePull {
  number: number;
  state: "open" | "closed";
  head: { sha: string; ref: string; repo: { full_name: string } | null };
  base: { ref: string; repo: { full_name: string } };
  created_at: string;
}

interface PullSpec {
  number: number;
  sha: string;
  /** The head branch (default `feature`). */
  ref?: string;
  /** The head branch's repository (default: the pull request's own); null: a deleted fork. */
  headRepo?: string | null;
  state?: "open" | "closed";
}

interface FakeIssue {
  number: number;
  title: string;
  body: string;
  state: "open" | "closed";
  labels: { name: string }[];
  user: { login: string; type: string };
  created_at: string;
  updated_at: string;
  html_url: string;
  /** Set on a pull request, as GitHub's issue list gives them. */
  pull_request?: { url: string };
}

interface IssueSpec {
  title?: string;
  body: string;
  labels?: string[];
  /** Default: the token's login. */
  login?: string;
  state?: "open" | "closed";
  pullRequest?: boolean;
}

interface Fault {
  method?: string;
  /** Matched against the request path (without the query). */
  path?: RegExp;
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
  /** How many matching requests fail (default 1). */
  times?: number;
}

interface LoggedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  status: number;
  authorized: boolean;
}

export const SECONDARY_RATE_LIMIT_MESSAGE =
  "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID.";

export interface GitHubServer {
  url: string;
  token: string;
  requests: LoggedRequest[];
  /** Comments of one issue or pull request, oldest first. */
  comments(repo: string, issue: number): FakeComment[];
  addComment(repo: string, issue: number, body: string, login?: string): FakeComment;
  /** Moves a pull request's head to `sha` (a new one: on branch `feature` of the same repository). */
  setPullHead(repo: string, pr: number, sha: string): void;
  /** Opens a pull request; later ones are newer. */
  addPull(repo: string, spec: PullSpec): FakePull;
  /** Issues of a repository, oldest first. */
  issues(repo: string): FakeIssue[];
  addIssue(repo: string, spec: IssueSpec): FakeIssue;
  /** Labels of a repository, as created. */
  labels(repo: string): { name: string; color: string; description: string }[];
  fail(fault: Fault): void;
  /** Called before each authorized request is answered (after faults), e.g. to play another client. */
  onRequest(hook: ((request: { method: string; path: string }) => void) | undefined): void;
  /** Faults not yet used up. */
  pendingFaults(): Fault[];
  close(): Promise<void>;
}

const MAX_BODY = 65_536;

export async function startGitHubServer(
  options: { token?: string; login?: string } = {},
): Promise<GitHubServer> {
  const token = options.token ?? "test-token";
  const botLogin = options.login ?? "github-actions[bot]";
  const issues = new Map<string, FakeComment[]>();
  const pulls = new Map<string, FakePull>();
  const repoIssues = new Map<string, FakeIssue[]>();
  /** Labels per repository, by lower-case name. */
  const labels = new Map<string, Map<string, { name: string; color: string; description: string }>>();
  const labelsOf = (repo: string) => {
    let map = labels.get(repo);
    if (!map)
      labels.set(repo, (map = new Map<string, { name: string; color: string; description: string }>()));
    return map;
  };
  let nextIssue = 1;
  const faults: Fault[] = [];
  const requests: LoggedRequest[] = [];
  let hook: ((request: { method: string; path: string }) => void) | undefined;
  let nextId = 1000;
  // A clock of its own: every comment is one second younger than the previous one.
  let clock = Date.parse("2026-01-01T00:00:00Z");
  let base = "";

  const listOf = (repo: string, issue: number): FakeComment[] => {
    const key = `${repo}#${issue}`;
    let list = issues.get(key);
    if (!list) issues.set(key, (list = []));
    return list;
  };
  const newComment = (repo: string, issue: number, body: string, login: string): FakeComment => {
    const id = nextId++;
    clock += 1000;
    const at = new Date(clock).toISOString();
    const comment = {
      id,
      body,
      user: { login, type: login.endsWith("[bot]") ? "Bot" : "User" },
      created_at: at,
      updated_at: at,
      html_url: `https://github.test/${repo}/pull/${issue}#issuecomment-${id}`,
      issue_url: `${base}/repos/${repo}/issues/${issue}`,
    };
    listOf(repo, issue).push(comment);
    return comment;
  };
  const issuesOf = (repo: string): FakeIssue[] => {
    let list = repoIssues.get(repo);
    if (!list) repoIssues.set(repo, (list = []));
    return list;
  };
  const newIssue = (repo: string, spec: IssueSpec): FakeIssue => {
    const number = nextIssue++;
    clock += 1000;
    const at = new Date(clock).toISOString();
    const login = spec.login ?? botLogin;
    for (const name of spec.labels ?? []) {
      if (!labelsOf(repo).has(name.toLowerCase()))
        labelsOf(repo).set(name.toLowerCase(), { name, color: "ededed", description: "" });
    }
    const issue: FakeIssue = {
      number,
      title: spec.title ?? `issue ${number}`,
      body: spec.body,
      state: spec.state ?? "open",
      labels: (spec.labels ?? []).map((name) => ({ name })),
      user: { login, type: login.endsWith("[bot]") ? "Bot" : "User" },
      created_at: at,
      updated_at: at,
      html_url: `https://github.test/${repo}/issues/${number}`,
      ...(spec.pullRequest ? { pull_request: { url: `${base}/repos/${repo}/pulls/${number}` } } : {}),
    };
    issuesOf(repo).push(issue);
    return issue;
  };
  const findComment = (repo: string, id: number): { list: FakeComment[]; index: number } | undefined => {
    for (const [key, list] of issues) {
      if (!key.startsWith(`${repo}#`)) continue;
      const index = list.findIndex((c) => c.id === id);
      if (index >= 0) return { list, index };
    }
    return undefined;
  };

  const server: Server = createServer((req, res) => {
    void handle(req, res).catch((err: unknown) => send(res, 500, { message: String(err) }));
  });

  function send(
    res: ServerResponse,
    status: number,
    body?: unknown,
    headers: Record<string, string> = {},
  ): void {
    const text = body === undefined ? "" : JSON.stringify(body);
    res.writeHead(status, {
      ...(text ? { "content-type": "application/json; charset=utf-8" } : {}),
      "x-github-request-id": `REQ-${requests.length}`,
      ...headers,
    });
    res.end(text);
  }

  async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    return text ? (JSON.parse(text) as Record<string, unknown>) : {};
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", base);
    const method = (req.method ?? "GET").toUpperCase();
    const auth = req.headers.authorization ?? "";
    const authorized = new RegExp(
      `^(token|bearer) ${token.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`,
      "i",
    ).test(auth);
    const entry: LoggedRequest = {
      method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      status: 0,
      authorized,
    };
    requests.push(entry);
    const reply = (status: number, body?: unknown, headers?: Record<string, string>) => {
      entry.status = status;
      send(res, status, body, headers);
    };
    /** One page of `list` (per_page at most 100, page), with GitHub's Link header. */
    const replyPage = (list: readonly unknown[]) => {
      const perPage = Math.min(100, Math.max(1, Number(url.searchParams.get("per_page") ?? 30) || 30));
      const page = Math.max(1, Number(url.searchParams.get("page") ?? 1) || 1);
      const last = Math.max(1, Math.ceil(list.length / perPage));
      const link = (p: number, rel: string) => {
        const u = new URL(url.pathname, base);
        for (const [k, v] of url.searchParams) u.searchParams.set(k, v);
        u.searchParams.set("per_page", String(perPage));
        u.searchParams.set("page", String(p));
        return `<${u.href}>; rel="${rel}"`;
      };
      const links: string[] = [];
      if (page < last) links.push(link(page + 1, "next"), link(last, "last"));
      if (page > 1) links.push(link(1, "first"), link(page - 1, "prev"));
      reply(
        200,
        list.slice((page - 1) * perPage, page * perPage),
        links.length ? { link: links.join(", ") } : {},
      );
    };

    if (!authorized)
      return reply(401, { message: "Bad credentials", documentation_url: "https://docs.github.com/rest" });

    const fault = faults.find(
      (f) =>
        (f.times ?? 1) > 0 && (!f.method || f.method === method) && (!f.path || f.path.test(url.pathname)),
    );
    if (fault) {
      fault.times = (fault.times ?? 1) - 1;
      return reply(fault.status, fault.body ?? { message: `fault ${fault.status}` }, fault.headers);
    }

    hook?.({ method, path: url.pathname });
    let m: RegExpExecArray | null;
    if ((m = /^\/repos\/([^/]+\/[^/]+)\/issues\/(\d+)\/comments$/.exec(url.pathname))) {
      const repo = m[1]!;
      const issue = Number(m[2]);
      if (method === "GET") return replyPage(listOf(repo, issue));
      if (method === "POST") {
        const body = (await readJson(req)).body;
        if (typeof body !== "string") return reply(422, { message: "Invalid request: body is required" });
        if (body.length > MAX_BODY) {
          return reply(422, {
            message: "Validation Failed",
            errors: [
              {
                resource: "IssueComment",
                code: "custom",
                field: "body",
                message: `body is too long (maximum is ${MAX_BODY} characters)`,
              },
            ],
          });
        }
        return reply(201, newComment(repo, issue, body, botLogin));
      }
    }
    if ((m = /^\/repos\/([^/]+\/[^/]+)\/issues\/comments\/(\d+)$/.exec(url.pathname))) {
      const found = findComment(m[1]!, Number(m[2]));
      if (!found) return reply(404, { message: "Not Found" });
      if (method === "PATCH") {
        const body = (await readJson(req)).body;
        if (typeof body !== "string") return reply(422, { message: "Invalid request: body is required" });
        if (body.length > MAX_BODY) return reply(422, { message: "Validation Failed: body is too long" });
        const comment = found.list[found.index]!;
        clock += 1000;
        comment.body = body;
        comment.updated_at = new Date(clock).toISOString();
        return reply(200, comment);
      }
      if (method === "DELETE") {
        found.list.splice(found.index, 1);
        return reply(204);
      }
      if (method === "GET") return reply(200, found.list[found.index]);
    }
    if ((m = /^\/repos\/([^/]+\/[^/]+)\/issues$/.exec(url.pathname))) {
      const repo = m[1]!;
      if (method === "GET") return replyPage(listIssues(repo, url.searchParams));
      if (method === "POST") {
        const { title, body, labels } = await readJson(req);
        if (typeof title !== "string" || title === "")
          return reply(422, { message: "Invalid request: title is required" });
        if (typeof body === "string" && body.length > MAX_BODY)
          return reply(422, { message: "Validation Failed: body is too long" });
        const names = (Array.isArray(labels) ? labels.map(String) : []).filter((name) =>
          labelsOf(repo).has(name.toLowerCase()),
        );
        return reply(
          201,
          newIssue(repo, { title, body: typeof body === "string" ? body : "", labels: names }),
        );
      }
    }
    if ((m = /^\/repos\/([^/]+\/[^/]+)\/issues\/(\d+)$/.exec(url.pathname)) && method === "PATCH") {
      const issue = issuesOf(m[1]!).find((i) => i.number === Number(m![2]));
      if (!issue) return reply(404, { message: "Not Found" });
      const { title, body, state } = await readJson(req);
      if (typeof body === "string" && body.length > MAX_BODY)
        return reply(422, { message: "Validation Failed: body is too long" });
      clock += 1000;
      if (typeof title === "string") issue.title = title;
      if (typeof body === "string") issue.body = body;
      if (state === "open" || state === "closed") issue.state = state;
      issue.updated_at = new Date(clock).toISOString();
      return reply(200, issue);
    }
    if ((m = /^\/repos\/([^/]+\/[^/]+)\/labels$/.exec(url.pathname)) && method === "GET")
      return replyPage([...labelsOf(m[1]!).values()]);
    if ((m = /^\/repos\/([^/]+\/[^/]+)\/labels$/.exec(url.pathname)) && method === "POST") {
      const { name, color, description } = await readJson(req);
      if (typeof name !== "string" || name === "") return reply(422, { message: "Validation Failed" });
      if (labelsOf(m[1]!).has(name.toLowerCase()))
        return reply(422, { message: "Validation Failed", errors: [{ code: "already_exists" }] });
      const label = {
        name,
        color: typeof color === "string" ? color : "ededed",
        description: typeof description === "string" ? description : "",
      };
      labelsOf(m[1]!).set(name.toLowerCase(), label);
      return reply(201, label);
    }
    if (url.pathname === "/graphql" && method === "POST") {
      const query = (await readJson(req)).query;
      if (typeof query !== "string" || !/\bviewer\s*\{\s*login\s*\}/.test(query))
        return reply(200, { errors: [{ message: "only `viewer { login }` is known here" }] });
      return reply(200, { data: { viewer: { login: botLogin } } });
    }
    if ((m = /^\/repos\/([^/]+\/[^/]+)\/pulls$/.exec(url.pathname)) && method === "GET") {
      const repo = m[1]!;
      const state = url.searchParams.get("state") ?? "open";
      const list = [...pulls.values()]
        .filter((p) => p.base.repo.full_name === repo && (state === "all" || p.state === state))
        .sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at));
      return replyPage(list);
    }
    if ((m = /^\/repos\/([^/]+\/[^/]+)\/pulls\/(\d+)$/.exec(url.pathname)) && method === "GET") {
      const pull = pulls.get(`${m[1]}#${m[2]}`);
      if (!pull) return reply(404, { message: "Not Found" });
      return reply(200, pull);
    }
    return reply(404, { message: "Not Found", documentation_url: "https://docs.github.com/rest" });
  }

  /** GitHub's issue list: every label given must be on the issue; newest first. */
  const listIssues = (repo: string, query: URLSearchParams): FakeIssue[] => {
    const state = query.get("state") ?? "open";
    const wanted = (query.get("labels") ?? "").split(",").filter((l) => l !== "");
    return issuesOf(repo)
      .filter((i) => state === "all" || i.state === state)
      .filter((i) => wanted.every((l) => i.labels.some((x) => x.name.toLowerCase() === l.toLowerCase())))
      .sort((a, b) => b.number - a.number);
  };

  const addPull = (repo: string, spec: PullSpec): FakePull => {
    clock += 1000;
    const headRepo = spec.headRepo === undefined ? repo : spec.headRepo;
    const pull: FakePull = {
      number: spec.number,
      state: spec.state ?? "open",
      head: {
        sha: spec.sha,
        ref: spec.ref ?? "feature",
        repo: headRepo === null ? null : { full_name: headRepo },
      },
      base: { ref: "main", repo: { full_name: repo } },
      created_at: new Date(clock).toISOString(),
    };
    pulls.set(`${repo}#${spec.number}`, pull);
    return pull;
  };

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: base,
    token,
    requests,
    comments: (repo, issue) => [...listOf(repo, issue)],
    addComment: (repo, issue, body, login = "someone") => newComment(repo, issue, body, login),
    setPullHead: (repo, pr, sha) => {
      const pull = pulls.get(`${repo}#${pr}`);
      if (pull) pull.head.sha = sha;
      else addPull(repo, { number: pr, sha });
    },
    addPull,
    issues: (repo) => [...issuesOf(repo)],
    addIssue: newIssue,
    labels: (repo) => [...labelsOf(repo).values()],
    fail: (fault) => void faults.push({ times: 1, ...fault }),
    onRequest: (fn) => {
      hook = fn;
    },
    pendingFaults: () => faults.filter((f) => (f.times ?? 1) > 0),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

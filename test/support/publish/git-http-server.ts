import { spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * Git's smart HTTP protocol on 127.0.0.1, served by the real `git http-backend` (CGI), behind a
 * check of `Authorization: basic base64(x-access-token:TOKEN)`, the header GitHub accepts from
 * Actions. Serves every repository under `root` at `/NAME.git`.
 */
export interface GitHttpServer {
  url: string;
  /** Authorization header seen on each request ("" when absent). */
  authHeaders: string[];
  close(): Promise<void>;
}

const BACKEND = "/usr/lib/git-core/git-http-backend";

export async function startGitHttpServer(root: string, token: string): Promise<GitHttpServer> {
  const expected = `basic ${Buffer.from(`x-access-token:${token}`).toString("base64")}`;
  const authHeaders: string[] = [];
  const server: Server = createServer((req, res) => {
    const auth = req.headers.authorization ?? "";
    authHeaders.push(auth);
    if (auth.toLowerCase() !== expected.toLowerCase()) {
      res.writeHead(401, { "www-authenticate": 'Basic realm="test"' });
      res.end("bad credentials\n");
      return;
    }
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const cgi = spawn(BACKEND, [], {
      env: {
        PATH: process.env.PATH,
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: "1",
        REMOTE_USER: "x-access-token",
        REQUEST_METHOD: req.method ?? "GET",
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: req.headers["content-type"] ?? "",
        HTTP_CONTENT_ENCODING: req.headers["content-encoding"] ?? "",
        GIT_PROTOCOL: String(req.headers["git-protocol"] ?? ""),
      },
      stdio: ["pipe", "pipe", "ignore"],
    });
    req.pipe(cgi.stdin);
    let buffered = Buffer.alloc(0);
    let headersDone = false;
    cgi.stdout.on("data", (chunk: Buffer) => {
      if (headersDone) {
        res.write(chunk);
        return;
      }
      buffered = Buffer.concat([buffered, chunk]);
      const end = buffered.indexOf("\r\n\r\n");
      if (end < 0) return;
      headersDone = true;
      let status = 200;
      const headers: Record<string, string> = {};
      for (const line of buffered.subarray(0, end).toString("latin1").split("\r\n")) {
        const colon = line.indexOf(":");
        const name = line.slice(0, colon).trim().toLowerCase();
        const value = line.slice(colon + 1).trim();
        if (name === "status") status = Number(value.split(" ")[0]);
        else headers[name] = value;
      }
      res.writeHead(status, headers);
      res.write(buffered.subarray(end + 4));
    });
    cgi.once("close", () => res.end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    authHeaders,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

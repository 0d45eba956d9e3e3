import { retry } from "@octokit/plugin-retry";
import { throttling } from "@octokit/plugin-throttling";
import { Octokit } from "@octokit/rest";
import Bottleneck from "bottleneck";

/**
 * The GitHub REST client: octokit with the retry plugin (5xx such as 502, with growing waits) and
 * the throttling plugin (403/429 rate limits, honouring `retry-after`; writes one at a time, a
 * second apart, and those that notify people, such as a new comment, three seconds apart, as
 * GitHub asks of integrations). `delayBaseMs` scales every wait (1000 = the header's seconds and
 * GitHub's spacing); tests make it small.
 */
const ProxybenchOctokit = Octokit.plugin(retry, throttling);
export type GitHubClient = InstanceType<typeof ProxybenchOctokit>;

export interface ClientOptions {
  token: string;
  /** GITHUB_API_URL: https://api.github.com, or https://HOST/api/v3 on GitHub Enterprise. */
  baseUrl?: string;
  delayBaseMs?: number;
  /** Retries of one request after a 5xx or a rate limit. */
  retries?: number;
  log?: (line: string) => void;
}

export function createClient(options: ClientOptions): GitHubClient {
  const log = options.log ?? (() => undefined);
  const retries = options.retries ?? 3;
  const base = options.delayBaseMs ?? 1000;
  // Logs the wait, and retries while the request has retries left.
  const onLimit =
    (what: string) =>
    (retryAfter: number, request: { method: string; url: string }, _octokit: unknown, count: number) => {
      log(`${what} on ${request.method} ${request.url}: retrying in ${retryAfter} s`);
      return count < retries;
    };
  return new ProxybenchOctokit({
    auth: options.token,
    baseUrl: (options.baseUrl ?? "https://api.github.com").replace(/\/+$/, ""),
    userAgent: "proxybench",
    retry: { retries, retryAfterBaseValue: base },
    throttle: {
      retryAfterBaseValue: base,
      write: new Bottleneck.Group({ maxConcurrent: 1, minTime: base }),
      notifications: new Bottleneck.Group({ maxConcurrent: 1, minTime: 3 * base }),
      onRateLimit: onLimit("rate limit"),
      onSecondaryRateLimit: onLimit("secondary rate limit"),
    },
    log: { debug: () => undefined, info: () => undefined, warn: log, error: log },
  });
}

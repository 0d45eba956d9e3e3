/**
 * What a refusal (403, or 429) from GitHub's REST API means. GitHub answers 403 for several
 * unrelated things, told apart by the body and the headers (docs.github.com, "Troubleshooting the
 * REST API" and "Rate limits for the REST API"):
 * - a token without the permission: "Resource not accessible by integration" (an installation
 *   token such as a fork's read-only GITHUB_TOKEN) or "... by personal access token";
 * - a locked conversation: "Unable to create comment because issue is locked.";
 * - a rate limit: the primary one has `x-ratelimit-remaining: 0` (until `x-ratelimit-reset`, in
 *   epoch seconds), a secondary one says "secondary rate limit" and may give `retry-after`;
 * - anything else (an organisation's SAML enforcement, a blocked user, ...).
 */

/** The kind of refusal, GitHub's status and message, and for a rate limit when it lifts. */
export type Refusal = { status: number; message: string } & (
  | { kind: "read-only" }
  | { kind: "locked" }
  | { kind: "rate-limited"; until?: string }
  | { kind: "forbidden" }
);

interface HttpError {
  status?: unknown;
  message?: unknown;
  response?: { headers?: Record<string, unknown>; data?: unknown } | undefined;
}

/** The body's message (octokit appends the documentation URL and more to `err.message`). */
function messageOf(err: HttpError): string {
  const data = err.response?.data as { message?: unknown } | undefined;
  if (typeof data?.message === "string") return data.message;
  return typeof err.message === "string" ? err.message : "(no message)";
}

function header(err: HttpError, name: string): string | undefined {
  const value = err.response?.headers?.[name];
  return typeof value === "string" || typeof value === "number" ? String(value) : undefined;
}

/** When a rate limit lifts, as GitHub's headers say: `retry-after` seconds, or the reset time. */
function rateLimitEnd(err: HttpError): string | undefined {
  const retryAfter = header(err, "retry-after");
  if (retryAfter !== undefined) return `retry after ${retryAfter} s`;
  const reset = Number(header(err, "x-ratelimit-reset"));
  return Number.isFinite(reset) && reset > 0
    ? `resets at ${new Date(reset * 1000).toISOString()}`
    : undefined;
}

/** What a 403 or 429 means (pure); undefined for any other error. */
export function readRefusal(error: unknown): Refusal | undefined {
  const err = (error ?? {}) as HttpError;
  if (err.status !== 403 && err.status !== 429) return undefined;
  const said = { status: err.status, message: messageOf(err) };
  const rateLimited =
    err.status === 429 ||
    header(err, "x-ratelimit-remaining") === "0" ||
    header(err, "retry-after") !== undefined ||
    /rate limit/i.test(said.message);
  if (rateLimited) {
    const until = rateLimitEnd(err);
    return { ...said, kind: "rate-limited", ...(until === undefined ? {} : { until }) };
  }
  if (/^Resource not accessible by (integration|personal access token)/i.test(said.message))
    return { ...said, kind: "read-only" };
  if (/\blocked\b/i.test(said.message)) return { ...said, kind: "locked" };
  return { ...said, kind: "forbidden" };
}

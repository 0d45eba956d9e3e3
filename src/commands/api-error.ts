import { UserError } from "../util/errors.js";

/**
 * An octokit failure as a message naming the request, without a stack; `scopes` says what the
 * token needs (`pull-requests: write`), shown on a 403 or 404. Anything else is returned as it is.
 */
export function apiError(err: unknown, scopes: string): unknown {
  const e = err as { status?: number; message?: string; request?: { method?: string; url?: string } };
  if (typeof e.status !== "number") return err;
  const hint =
    e.status === 401
      ? " (GITHUB_TOKEN rejected)"
      : e.status === 403 || e.status === 404
        ? ` (the token needs ${scopes})`
        : "";
  return new UserError(
    `GitHub API ${e.request?.method ?? ""} ${e.request?.url ?? ""}: ${e.status} ${e.message ?? ""}${hint}`.trim(),
    1,
  );
}

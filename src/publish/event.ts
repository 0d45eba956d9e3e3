import { readFileSync } from "node:fs";
import { withoutUndefined } from "../util/objects.js";

/**
 * GitHub usernames of a commit's author and committer, from the workflow's event payload
 * (`GITHUB_EVENT_PATH`). github-action-benchmark's chart shows "committed by @<username>" and
 * reads them the same way: a push's `head_commit`, a pull request's head user.
 */

export interface EventUsernames {
  author?: string;
  committer?: string;
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** What we read of a payload; any of it may be missing or of another type (optional chaining copes). */
type EventPayload = {
  head_commit?: { author?: { username?: unknown }; committer?: { username?: unknown } };
  pull_request?: { head?: { user?: { login?: unknown } } };
} | null;

/** Pure: the usernames a push or pull_request payload gives; none for other events. */
export function usernamesFromEvent(payload: unknown): EventUsernames {
  const event = payload as EventPayload;
  const head = event?.head_commit;
  if (head) {
    const author = text(head.author?.username);
    const committer = text(head.committer?.username);
    return withoutUndefined({ author, committer }); // text() gives no empty name
  }
  const login = text(event?.pull_request?.head?.user?.login);
  return login ? { author: login, committer: login } : {};
}

/** The usernames of the event file `GITHUB_EVENT_PATH` names; none when it is absent or unreadable. */
export function usernamesFromEventFile(file: string | undefined): EventUsernames {
  if (!file) return {};
  try {
    return usernamesFromEvent(JSON.parse(readFileSync(file, "utf8")));
  } catch {
    return {};
  }
}

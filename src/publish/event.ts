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

function field(object: unknown, ...keys: string[]): unknown {
  let node = object;
  for (const key of keys) {
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** Pure: the usernames a push or pull_request payload gives; none for other events. */
export function usernamesFromEvent(payload: unknown): EventUsernames {
  const head = field(payload, "head_commit");
  if (head) {
    const author = text(field(head, "author", "username"));
    const committer = text(field(head, "committer", "username"));
    return withoutUndefined({ author, committer }); // text() gives no empty name
  }
  const login = text(field(payload, "pull_request", "head", "user", "login"));
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

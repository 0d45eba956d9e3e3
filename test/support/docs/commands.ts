import { readFileSync } from "node:fs";
import path from "node:path";
import { docFiles } from "./markdown.js";

/**
 * The `proxybench ...` commands that README.md and docs/*.md show: every line of a fenced block
 * that starts with `proxybench` (or `npx proxybench`, `$ `, `- run: `), and every inline code
 * span that is a whole command.
 */

export interface DocCommand {
  file: string;
  line: number;
  text: string;
  /** The words after `proxybench`, quotes removed. */
  words: string[];
  fenced: boolean;
}

const PREFIX = /^(?:\$\s+|-?\s*run:\s+)?(?:npx\s+)?proxybench\s+(.*)$/;

/** Splits a shell line into words: quotes kept together, a trailing `# comment` dropped. */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let current: string | undefined;
  let quote: string | undefined;
  for (const ch of line) {
    if (quote) {
      if (ch === quote) quote = undefined;
      else current = (current ?? "") + ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      current ??= "";
    } else if (/\s/.test(ch)) {
      if (current !== undefined) words.push(current);
      current = undefined;
    } else if (ch === "#" && current === undefined) {
      break;
    } else {
      current = (current ?? "") + ch;
    }
  }
  if (current !== undefined) words.push(current);
  return words;
}

function command(file: string, line: number, raw: string, fenced: boolean): DocCommand | undefined {
  const m = PREFIX.exec(raw.trim());
  if (!m?.[1]) return undefined;
  return { file, line, text: `proxybench ${m[1].trim()}`, words: shellWords(m[1]), fenced };
}

/** The commands of one markdown text. */
export function extractCommands(file: string, markdown: string): DocCommand[] {
  const found: DocCommand[] = [];
  const lines = markdown.split("\n");
  let fence = false;
  const prose: Array<{ line: number; text: string }> = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    if (/^\s*```/.test(line)) {
      fence = !fence;
      continue;
    }
    if (fence) {
      const start = i + 1;
      let joined = line;
      while (joined.endsWith("\\") && i + 1 < lines.length) joined = `${joined.slice(0, -1)} ${lines[++i]}`;
      const c = command(file, start, joined, true);
      if (c) found.push(c);
    } else prose.push({ line: i + 1, text: line });
  }
  // Inline spans may wrap onto the next line of a paragraph.
  const text = prose.map((p) => p.text).join("\n");
  for (const m of text.matchAll(/`([^`]+)`/g)) {
    const span = m[1]!.replace(/\s+/g, " ");
    const lineIndex = text.slice(0, m.index).split("\n").length - 1;
    const c = command(file, prose[lineIndex]?.line ?? 0, span, false);
    if (c && c.words.length > 0) found.push(c);
  }
  return found;
}

/** README.md and docs/*.md of the project. */
export function documentedCommands(root: string): DocCommand[] {
  return docFiles(root).flatMap((rel) => extractCommands(rel, readFileSync(path.join(root, rel), "utf8")));
}

/**
 * A word that stands for a value the reader chooses: DIR, NAME=FILE, OWNER/NAME, `...`, a
 * `[--flag]` part, a `$VARIABLE` of the workflow.
 */
export function isPlaceholder(word: string): boolean {
  return /^[A-Z][A-Z0-9_/=.]*$/.test(word) || word === "..." || /[[\]()$]/.test(word) || word === "|";
}

/**
 * A command with nothing left for the reader to fill in. An inline span that is a name alone
 * (`proxybench publish`) or ends with a flag (`proxybench report --k6-summary`) names the command
 * or the flag in a sentence: only its subcommand and flags are checked.
 */
export function isConcrete(c: DocCommand): boolean {
  if (c.words.some(isPlaceholder) || c.words.some((w) => /^[a-z0-9-]+(\|[a-z0-9-]+)+$/.test(w))) return false;
  return c.fenced || (c.words.length > 1 && !c.words.at(-1)!.startsWith("-"));
}

/** A fenced block of a markdown text: its info string's language, its first line and its lines. */
export interface FencedBlock {
  lang: string;
  line: number;
  lines: string[];
  /** The prose line just before the block (what it is, e.g. the file a YAML block is). */
  before: string;
}

export function fencedBlocks(markdown: string): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  const lines = markdown.split("\n");
  let open: FencedBlock | undefined;
  let prose = "";
  lines.forEach((line, i) => {
    const fence = /^\s*```\s*(\S*)/.exec(line);
    if (open && fence) {
      blocks.push(open);
      open = undefined;
    } else if (fence) {
      open = { lang: fence[1] ?? "", line: i + 2, lines: [], before: prose };
    } else if (open) {
      open.lines.push(line);
    } else if (line.trim() !== "") {
      prose = line;
    }
  });
  return blocks;
}

const SHELL = new Set(["sh", "bash", "shell", "console"]);

/** The commands of a shell block: continuations joined, comments and blank lines dropped. */
export function shellCommands(block: FencedBlock): Array<{ line: number; text: string }> {
  if (!SHELL.has(block.lang)) return [];
  const out: Array<{ line: number; text: string }> = [];
  for (let i = 0; i < block.lines.length; i++) {
    const line = block.line + i;
    let text = block.lines[i] ?? "";
    while (text.endsWith("\\") && i + 1 < block.lines.length)
      text = `${text.slice(0, -1)} ${block.lines[++i]}`;
    text = text
      .replace(/^\$\s+/, "")
      .replace(/\s+#.*$/, "")
      .trim();
    if (text !== "" && !text.startsWith("#")) out.push({ line, text });
  }
  return out;
}

/** How the check runs a documented shell command: the command it runs instead, or why it does not. */
export type CommandCheck = { run: string; note?: string } | { skip: string };

/**
 * What the README check does with one command, in a copy of the checkout (`bin` the CLI's path):
 * `proxybench run` is planned only (`--dry-run`); `npm run quickstart` is its last step, planned;
 * `npm test` and a clone over the network are not run (the clone's folder name is checked);
 * `git worktree add DIR REF` is stood in for by links to this checkout's proxies and scenarios;
 * plain file commands run as written. Any other command has no rule, and fails the check.
 */
export function commandCheck(text: string, scripts: Record<string, string>, bin: string): CommandCheck {
  const proxybench = /^(?:npx\s+)?proxybench\s+(.*)$/.exec(text);
  if (proxybench) {
    const words = proxybench[1]!;
    const planned = /^run\b/.test(words) && !/--dry-run|--resume/.test(words) ? `${words} --dry-run` : words;
    return { run: `node ${bin} ${planned}` };
  }
  const npmRun = /^npm run ([\w:-]+)$/.exec(text);
  if (npmRun) {
    const script = scripts[npmRun[1]!];
    if (script === undefined) return { run: `echo "no npm script '${npmRun[1]}'" >&2; exit 2` };
    const last = script.split("&&").at(-1)!.trim();
    return commandCheck(last.replace(/^node bin\/proxybench\.js/, "proxybench"), scripts, bin);
  }
  if (text === "npm test") {
    return scripts.test === undefined
      ? { run: "exit 2" }
      : { skip: "the whole suite, which runs this check" };
  }
  const clone = /^git clone (\S+?)(?:\.git)? && cd (\S+)$/.exec(text);
  if (clone) {
    return clone[1]!.split("/").at(-1) === clone[2]
      ? { skip: "a clone over the network (its folder is the one cd enters)" }
      : { run: `echo "cd ${clone[2]}: the clone's folder is ${clone[1]!.split("/").at(-1)}" >&2; exit 2` };
  }
  const worktree = /^git worktree add (\S+) \S+$/.exec(text);
  if (worktree) {
    const dir = worktree[1]!;
    return {
      run: `mkdir ${dir} && ln -s "$PWD/proxies" "$PWD/scenarios" ${dir}/`,
      note: "a stand-in worktree",
    };
  }
  if (/^(cp|mkdir)\s/.test(text)) return { run: text };
  return { run: `echo "no rule checks this command: ${text.replace(/"/g, "'")}" >&2; exit 2` };
}

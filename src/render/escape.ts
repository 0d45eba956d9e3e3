/**
 * Escaping for every name that reaches a report: proxy, scenario, load label, branch, commit
 * message, reasons. Names come from manifests, git and the command line, so a crafted one must
 * neither inject markup nor break a table.
 */

const HTML_ENTITIES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Text for HTML element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ENTITIES[c] ?? c);
}

/**
 * Markdown punctuation that can start emphasis, links, code, strike-through or math (`$`), or end
 * a table cell, anywhere in a line.
 */
const MARKDOWN_PUNCTUATION = /[\\`*_[\]|~$]/g;

/**
 * An invisible character put where GitHub would otherwise turn plain text into something live: a
 * mention (`@user`, `@org/team`, which notifies), a reference (`#12`, `GH-12`, `owner/repo#12`,
 * which links the other issue back to ours) or a link (`https://x`, `www.x`, `a@b.c`). GitHub finds
 * those in the rendered text, after entities are decoded, so an entity such as `&#64;` is not enough.
 */
const ZERO_WIDTH_SPACE = "\u200B";

/**
 * What opens a block when a line starts with it: a heading (`# `), a list item (`- `, `+ `,
 * `1. `), a rule or a setext underline (`---`, `===`). `+40.00%` opens nothing and stays as it is.
 */
const BLOCK_START = /^(\s*)(#{1,6}(?=\s|$)|[-+](?=\s|$)|\d{1,9}[.)](?=\s|$)|[-=]+(?=\s*$))/;

/** `#` -> `\#`, `12.` -> `12\.`: the marker's last character escaped. */
function escapeLast(marker: string): string {
  return `${marker.slice(0, -1)}\\${marker.slice(-1)}`;
}

/**
 * Text for GitHub-flavoured markdown, inline or inside a table cell, shown as written with nothing
 * live: HTML is neutralised with entities (GitHub renders raw HTML; quotes need none outside a
 * tag), markdown punctuation is backslash-escaped (so `|` cannot end a cell and `[x](y)` is no
 * link), a block marker at the start cannot open a heading or a list, mentions, references and
 * bare links are broken by a zero-width space, and line breaks become spaces (a newline would end
 * the table row).
 */
export function escapeMarkdown(text: string): string {
  return text
    .replace(/\r\n|\r|\n|\u2028|\u2029/g, " ")
    .replace(/[&<>]/g, (c) => HTML_ENTITIES[c] ?? c)
    .replace(MARKDOWN_PUNCTUATION, (c) => `\\${c}`)
    .replace(BLOCK_START, (_, space: string, marker: string) => `${space}${escapeLast(marker)}`)
    .replace(/@(?=\S)/g, `@${ZERO_WIDTH_SPACE}`)
    .replace(/#(?=\d)/g, `#${ZERO_WIDTH_SPACE}`)
    .replace(/(gh)-(?=\d)/gi, `$1${ZERO_WIDTH_SPACE}-`)
    .replace(/:\/\//g, `:${ZERO_WIDTH_SPACE}//`)
    .replace(/(www)\./gi, `$1${ZERO_WIDTH_SPACE}.`);
}

/** How a renderer writes untrusted text, what it sets in bold and as code: markdown or HTML. */
export interface Markup {
  escape: (text: string) => string;
  strong: (markup: string) => string;
  code: (markup: string) => string;
}

export const MARKDOWN: Markup = {
  escape: escapeMarkdown,
  strong: (text) => `**${text}**`,
  code: (text) => `\`${text}\``,
};
export const HTML: Markup = {
  escape: escapeHtml,
  strong: (text) => `<strong>${text}</strong>`,
  code: (text) => `<code>${text}</code>`,
};

/**
 * JSON to embed in an HTML `<script>` element: `<`, `>` and `&` are written as unicode escapes
 * (no `</script>` or `<!--` can end the element), and so are U+2028 and U+2029 (line
 * terminators in older JavaScript). The result parses back to the same value.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => {
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;
  });
}

/** A script body that cannot end its `<script>` element early. */
export function inlineScript(source: string): string {
  return source.replace(/<\/(script)/gi, "<\\/$1").replace(/<!--/g, "<\\!--");
}

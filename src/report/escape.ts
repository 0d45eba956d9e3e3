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
 * Markdown punctuation that can start emphasis, links, code or strike-through, or end a table
 * cell, anywhere in a line. (Names never start a line of ours, so `#`, `-`, `+` and `1.` are safe.)
 */
const MARKDOWN_PUNCTUATION = /[\\`*_[\]|~]/g;

/**
 * Text for GitHub-flavoured markdown, inline or inside a table cell: HTML is neutralised with
 * entities (GitHub renders raw HTML; quotes need none outside a tag), markdown punctuation is backslash-escaped (so `|` cannot
 * end a cell and `[x](y)` is no link), `@` cannot mention anyone, and line breaks become spaces
 * (a newline would end the table row).
 */
export function escapeMarkdown(text: string): string {
  return text
    .replace(/\r\n|\r|\n|\u2028|\u2029/g, " ")
    .replace(/[&<>]/g, (c) => HTML_ENTITIES[c] ?? c)
    .replace(MARKDOWN_PUNCTUATION, (c) => `\\${c}`)
    .replace(/@/g, "&#64;");
}

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

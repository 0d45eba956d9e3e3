/** A heading of this level, kept within markdown's six. */
export function heading(level: number, text: string): string {
  return `${"#".repeat(Math.min(Math.max(level, 1), 6))} ${text}`;
}

/** A list under its title: the title, a blank line, then a `- ` line per item. */
export function titledList(title: string, items: readonly string[]): string {
  return [title, "", ...items.map((item) => `- ${item}`)].join("\n");
}

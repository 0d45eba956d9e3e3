/** A heading of this level, kept within markdown's six. */
export function heading(level: number, text: string): string {
  return `${"#".repeat(Math.min(Math.max(level, 1), 6))} ${text}`;
}

/** Rows of the first markdown table after `marker` (its separator row included), split on unescaped pipes. */
export function tableAfter(markdown: string, marker: string): string[][] {
  const lines = markdown.slice(markdown.indexOf(marker)).split("\n");
  const start = lines.findIndex((l) => l.startsWith("|"));
  const rows: string[][] = [];
  for (const line of lines.slice(start)) {
    if (!line.startsWith("|")) break;
    rows.push(
      line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((c) => c.trim()),
    );
  }
  return rows;
}

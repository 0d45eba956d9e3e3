import { escapeHtml } from "./escape.js";

/**
 * The frame of proxybench's self-contained HTML pages (the report and the counted comparison):
 * no request leaves the page, scripts and styles are inline.
 */

/** The start of every page's style sheet: the text and the tables. */
export const BASE_STYLE = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border: 1px solid #ccc; padding: 4px 8px; text-align: right; vertical-align: top; }
`;

export interface HtmlPage {
  /** The page's title and first heading (escaped here). */
  title: string;
  style: string;
  /** What follows the heading, as HTML. */
  body: string;
  /** Whether the page may show data: images (the report's policy allows them). */
  dataImages?: boolean;
}

export function htmlPage(page: HtmlPage): string {
  const images = page.dataImages ? "; img-src data:" : "";
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'${images}">
<title>${escapeHtml(page.title)}</title>
<style>${page.style}</style>
</head>
<body>
<h1>${escapeHtml(page.title)}</h1>
${page.body}
</body>
</html>
`;
}

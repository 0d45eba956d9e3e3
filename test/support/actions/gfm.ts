import { micromark } from "micromark";
import { gfm, gfmHtml } from "micromark-extension-gfm";

/**
 * Markdown read the way GitHub reads a comment: GitHub-flavoured markdown (tables, autolink
 * literals, strike-through) rendered by micromark, raw HTML kept (GitHub keeps much of it), then
 * the text searched the way GitHub finds mentions and references in rendered text.
 */
function renderGfm(markdown: string): string {
  return micromark(markdown, {
    allowDangerousHtml: true,
    extensions: [gfm()],
    htmlExtensions: [gfmHtml()],
  });
}

/** The tags the report writes itself (`<details>`, `<br>` in a cell, tables, lists, emphasis). */
const OWN_TAGS = new Set(
  "p strong em code pre table thead tbody tr th td ul ol li h1 h2 h3 h4 h5 h6 details summary br blockquote hr a".split(
    " ",
  ),
);

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name.startsWith("#x") || name.startsWith("#X"))
      return String.fromCodePoint(parseInt(name.slice(2), 16));
    if (name.startsWith("#")) return String.fromCodePoint(Number(name.slice(1)));
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

/** The text a reader sees: tags dropped, entities decoded (zero-width characters kept). */
function renderedText(markdown: string): string {
  return decodeEntities(renderGfm(markdown).replace(/<[^>]*>/g, ""));
}

/**
 * The text a reader sees, without the invisible characters that break mentions and links, each
 * run of white space one space.
 */
export function visibleText(markdown: string): string {
  return renderedText(markdown)
    .replace(/\u200B|\u200C|\u200D|\u2060/g, "")
    .replace(/\s+/g, " ");
}

/**
 * Everything live in a rendered comment that the report did not put there itself: a tag beyond
 * its own, a link to anywhere but `ownLinks`, a mention (`@user`, notifies) or an issue reference
 * (`#12`, `GH-12`, `owner/repo#12`) in the text. Empty when the comment is inert.
 */
export function liveMarkup(markdown: string, ownLinks: readonly string[] = []): string[] {
  const html = renderGfm(markdown);
  const found: string[] = [];
  for (const m of html.matchAll(/<([a-z][a-z0-9-]*)\b[^>]*>/gi)) {
    if (!OWN_TAGS.has(m[1]!.toLowerCase())) found.push(`tag ${m[0]}`);
  }
  for (const m of html.matchAll(/<a\b[^>]*\bhref="([^"]*)"/gi)) {
    const href = decodeEntities(m[1]!);
    if (!ownLinks.includes(href)) found.push(`link ${href}`);
  }
  const text = renderedText(markdown);
  for (const m of text.matchAll(/(?:^|[^\w`])(@[a-z0-9][a-z0-9-]*(?:\/[a-z0-9-]+)?)/gi))
    found.push(`mention ${m[1]}`);
  for (const m of text.matchAll(/(?:^|[^\w&])((?:[\w.-]+\/[\w.-]+)?#\d+|gh-\d+)/gi))
    found.push(`reference ${m[1]}`);
  return found;
}

import { BuildError } from '../../pipeline/base/errors.ts';
import { fetchText, type HttpOptions } from './http.ts';
import type { JsonRule, ListingRule, SourceEntry } from './sources.ts';

/**
 * Where a source's file is now. A fixed `url` is used as given; a `listing` rule reads the publisher's page
 * and takes the matching link (the NPPES monthly zip is renamed every month); a `json` rule reads a
 * catalogue entry (the CMS Provider Data Catalog's metastore gives each data set's current download URL).
 */
export async function discoverUrl(
  entry: SourceEntry,
  rule: ListingRule | JsonRule,
  expandedAddress: string,
  sourcesFile: string,
  http: HttpOptions,
): Promise<string> {
  if (rule.kind === 'listing') {
    const page = await fetchText(expandedAddress, http);
    const links = pageLinks(page.text).filter((href) => rule.pattern.test(href));
    const chosen = pick(links, rule);
    if (chosen === undefined) {
      throw new BuildError(
        `source "${entry.key}": no link on ${rule.listing} matches ${rule.pattern} (the page has ${pageLinks(page.text).length} links). ` +
          `The publisher renamed the file: open the page, find the file and update sources.${entry.key}.discover.pattern in ${sourcesFile}.`,
      );
    }
    return new URL(chosen, page.finalUrl).href;
  }
  const answer = await fetchText(expandedAddress, http);
  let document: unknown;
  try {
    document = JSON.parse(answer.text);
  } catch {
    throw new BuildError(
      `source "${entry.key}": ${rule.json} did not answer JSON (Content-Type ${answer.contentType || 'none'}; it starts ${JSON.stringify(answer.text.slice(0, 80))}). Check the address in sources.${entry.key}.discover.json of ${sourcesFile}.`,
    );
  }
  const value = jsonPath(document, rule.path);
  if (typeof value !== 'string' || value === '') {
    throw new BuildError(
      `source "${entry.key}": ${rule.json} has no address at "${rule.path}" (found ${JSON.stringify(value)?.slice(0, 80) ?? 'nothing'}). ` +
        `The catalogue changed its format: find the download URL in that JSON and update sources.${entry.key}.discover.path in ${sourcesFile}.`,
    );
  }
  return new URL(value, answer.finalUrl).href;
}

/** Every href of an HTML page, entities decoded, in page order. */
export function pageLinks(html: string): string[] {
  const links: string[] = [];
  for (const match of html.matchAll(/\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+))/gi)) {
    const href = (match[1] ?? match[2] ?? match[3]).trim();
    if (href) links.push(href.replace(/&amp;/g, '&').replace(/&#x2F;/gi, '/'));
  }
  return links;
}

function pick(links: string[], rule: ListingRule): string | undefined {
  if (rule.pick === 'first') return links[0];
  if (rule.pick === 'last') return links.at(-1);
  // highest: by the first captured number (nucc_taxonomy_251.csv < nucc_taxonomy_261.csv); ties keep page order.
  let best: { href: string; value: number } | undefined;
  for (const href of links) {
    const value = Number(rule.pattern.exec(href)?.[1]);
    if (Number.isFinite(value) && (best === undefined || value > best.value)) best = { href, value };
  }
  return best?.href;
}

/** The value at a dot path (`distribution.0.data.downloadURL`), or undefined. */
export function jsonPath(document: unknown, dotted: string): unknown {
  let value: unknown = document;
  for (const part of dotted.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

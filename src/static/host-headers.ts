/**
 * `_headers`: the server's headers for static hosts that read that file (Netlify, Cloudflare Pages), written by
 * the export from the headers each route's answers were made with, so they cannot drift from the server's.
 * Without it such a host sends `index.html` as `text/html` without CORS, and `index.json` as whatever it guesses.
 *
 * Both hosts apply every rule whose path matches a request (`:name` matches one path segment); Cloudflare joins
 * the values of a header two rules set with a comma, Netlify keeps one of them. So the rules here never set one
 * header twice for one path: a route whose path another's placeholder also matches (`health-scores/geojson/`
 * and `health-scores/:zip/`) must have the same headers, and only the wider rule is written.
 */

/** The file's name in the export's folder. */
export const HEADERS_FILE = '_headers';

/** Cloudflare Pages reads at most 100 rules and 2,000 characters a line; Netlify has no lower limit. */
export const MAX_RULES = 100;
export const MAX_LINE_CHARS = 2000;

/** One rule: a path pattern and the headers of the paths it matches. */
export interface HeaderRule {
  path: string;
  headers: Record<string, string>;
}

/**
 * The headers a static host can send as the server does: not those of one body (length, tag) and not the
 * `Vary: Accept-Encoding` of the server's compression (a host that compresses adds its own).
 */
export function hostHeaders(sent: Readonly<Record<string, string>>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(sent)) {
    if (/^(content-length|etag|content-encoding)$/i.test(name)) continue;
    const shown =
      name.toLowerCase() === 'vary'
        ? value
            .split(',')
            .map((token) => token.trim())
            .filter((token) => token !== '' && token.toLowerCase() !== 'accept-encoding')
            .join(', ')
        : value;
    if (shown !== '') kept[name] = shown;
  }
  return kept;
}

/**
 * The rules of the routes an export wrote (route path with `:name` parameters, and the headers its answers were
 * sent with), one a route. A route's rule is left out where a wider rule with the same headers covers it; two
 * rules that can match one path with different headers are a mistake in the route table, refused here.
 */
export function headerRules(routes: ReadonlyArray<{ path: string; headers: Readonly<Record<string, string>> }>): HeaderRule[] {
  const rules = routes
    .filter((route) => Object.keys(route.headers).length > 0)
    .map((route) => ({ path: route.path, headers: hostHeaders(route.headers) }));
  const kept = rules.filter((rule) => {
    const wider = rules.find((other) => other !== rule && covers(other.path, rule.path));
    return wider === undefined || !sameHeaders(wider.headers, rule.headers);
  });
  for (const [i, rule] of kept.entries()) {
    for (const other of kept.slice(i + 1)) {
      if (!overlap(rule.path, other.path)) continue;
      throw new Error(
        `${HEADERS_FILE}: the rules ${rule.path} and ${other.path} can match one path with different headers (${JSON.stringify(rule.headers)} and ${JSON.stringify(other.headers)}), and a host would join or pick them: give the routes the same headers or paths that cannot meet`,
      );
    }
  }
  if (kept.length > MAX_RULES) throw new Error(`${HEADERS_FILE}: ${kept.length} rules, over Cloudflare Pages' ${MAX_RULES}`);
  return kept;
}

/** The text of `_headers`: a comment, then each rule's path and its headers indented beneath it. */
export function formatHeaders(rules: readonly HeaderRule[], comment: readonly string[]): string {
  const lines = comment.map((line) => `# ${line}`);
  for (const rule of rules) {
    lines.push('', rule.path, ...Object.entries(rule.headers).map(([name, value]) => `  ${name}: ${value}`));
  }
  const long = lines.find((line) => line.length > MAX_LINE_CHARS);
  if (long !== undefined)
    throw new Error(`${HEADERS_FILE}: a line of ${long.length} characters, over ${MAX_LINE_CHARS}: ${long.slice(0, 80)}`);
  return `${lines.join('\n')}\n`;
}

/** Reads a `_headers` file as the hosts do: a line starting with `/` opens a rule, an indented `Name: value` adds to it. */
export function parseHeaders(text: string): HeaderRule[] {
  const rules: HeaderRule[] = [];
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    if (line.startsWith('/')) {
      rules.push({ path: line, headers: {} });
      continue;
    }
    const colon = line.indexOf(':');
    const rule = rules.at(-1);
    if (colon <= 0 || rule === undefined) throw new Error(`${HEADERS_FILE} line ${i + 1}: expected a path or "Name: value", got ${line}`);
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    rule.headers[name] = rule.headers[name] === undefined ? value : `${rule.headers[name]}, ${value}`;
  }
  return rules;
}

/** The headers the rules give a request path, as Cloudflare Pages applies them: every matching rule, in order. */
export function headersFor(rules: readonly HeaderRule[], urlPath: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const rule of rules) {
    if (!matches(rule.path, urlPath)) continue;
    for (const [name, value] of Object.entries(rule.headers)) {
      const key = Object.keys(headers).find((known) => known.toLowerCase() === name.toLowerCase()) ?? name;
      headers[key] = headers[key] === undefined ? value : `${headers[key]}, ${value}`;
    }
  }
  return headers;
}

/** True when the pattern matches the path: `:name` one segment, `*` the rest, anything else itself. */
export function matches(pattern: string, urlPath: string): boolean {
  const source = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z]\w*/g, '[^/]+'))
    .join('.*');
  return new RegExp(`^${source}$`).test(urlPath);
}

/** True when some path matches both patterns (placeholders only, as the export writes them). */
function overlap(a: string, b: string): boolean {
  const [x, y] = [a.split('/'), b.split('/')];
  return x.length === y.length && x.every((segment, i) => segment === y[i] || isPlaceholder(segment) || isPlaceholder(y[i]));
}

/** True when every path `narrow` matches, `wide` matches too. */
function covers(wide: string, narrow: string): boolean {
  const [x, y] = [wide.split('/'), narrow.split('/')];
  return x.length === y.length && x.every((segment, i) => segment === y[i] || isPlaceholder(segment));
}

function isPlaceholder(segment: string | undefined): boolean {
  return segment !== undefined && /^:[A-Za-z]\w*$/.test(segment);
}

function sameHeaders(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  const entries = (headers: Readonly<Record<string, string>>) => JSON.stringify(Object.entries(headers).sort());
  return entries(a) === entries(b);
}

import type { Envelope } from '../../http/pagination.ts';

/**
 * The request path of a list command from its options (`pageSize` -> `page_size`), and the option flag of
 * each API parameter, so an API error names `--page-size`, not `page_size`.
 */
export function listQuery(path: string, parameters: Readonly<Record<string, string>>, given: object): { path: string; flags: Record<string, string> } {
  const options = given as Record<string, unknown>;
  const query = new URLSearchParams();
  const flags: Record<string, string> = {};
  for (const [option, parameter] of Object.entries(parameters)) {
    const value = options[option];
    if (value === true) query.set(parameter, 'true');
    else if (typeof value === 'string') query.set(parameter, value);
    flags[parameter] = `--${option.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
  }
  return { path: `${path}${query.size ? `?${query}` : ''}`, flags };
}

/** The line under a page's table: how many match, which page, how to get the next. */
export function pageFooter(page: Envelope<unknown>, number: number, noun: string): string {
  const more = page.next ? `; next: --page ${number + 1}` : '';
  return `${page.count} matching ${noun}${page.count === 1 ? '' : 's'}, page ${number}${more}\n`;
}

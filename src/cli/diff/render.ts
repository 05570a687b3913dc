import { readable } from '../../../core/numbers.ts';
import { type Column, table } from '../format.ts';

/** A part of a printed report; the same blocks print as aligned text for a terminal or as Markdown. */
export type Block =
  | { kind: 'heading'; level: 1 | 2 | 3; text: string }
  | { kind: 'text'; text: string }
  | { kind: 'list'; items: Array<{ text: string; sub?: string[] }> }
  | { kind: 'table'; columns: Column[]; rows: Array<Record<string, unknown>> };

/** The blocks as plain text: headings underlined, aligned tables, indented lists. */
export function asText(blocks: readonly Block[]): string {
  const out: string[] = [];
  for (const block of blocks) {
    switch (block.kind) {
      case 'heading':
        out.push(block.level === 1 ? `${block.text}\n` : `\n${block.level === 2 ? block.text.toUpperCase() : block.text}\n`);
        break;
      case 'text':
        out.push(`${block.text}\n`);
        break;
      case 'list':
        for (const item of block.items) {
          out.push(`  ${item.text}\n`);
          for (const sub of item.sub ?? []) out.push(`      ${sub}\n`);
        }
        break;
      case 'table':
        out.push(table(block.rows, block.columns));
        break;
    }
  }
  return out.join('');
}

const cell = (value: unknown) => (value === null || value === undefined ? '' : String(value).replaceAll('|', '\\|').replaceAll('\n', ' '));

/** The blocks as GitHub-flavoured Markdown, for a pull request or a release note. */
export function asMarkdown(blocks: readonly Block[]): string {
  const out: string[] = [];
  for (const block of blocks) {
    switch (block.kind) {
      case 'heading':
        out.push(`${'#'.repeat(block.level)} ${block.text}`, '');
        break;
      case 'text':
        out.push(block.text, '');
        break;
      case 'list':
        for (const item of block.items) {
          out.push(`- ${item.text}`);
          for (const sub of item.sub ?? []) out.push(`  - ${sub}`);
        }
        out.push('');
        break;
      case 'table': {
        const numeric = block.columns.map(
          (c) => c.right || (block.rows.length > 0 && block.rows.every((r) => typeof r[c.key] === 'number')),
        );
        out.push(
          `| ${block.columns.map((c) => cell(c.heading ?? c.key)).join(' | ')} |`,
          `|${numeric.map((n) => (n ? '---:' : '---')).join('|')}|`,
          ...block.rows.map(
            (r) =>
              `| ${block.columns.map((c) => cell(typeof r[c.key] === 'number' ? readable(r[c.key] as number) : r[c.key])).join(' | ')} |`,
          ),
          '',
        );
        break;
      }
    }
  }
  return `${out.join('\n').trimEnd()}\n`;
}

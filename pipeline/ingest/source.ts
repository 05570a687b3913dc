import { BuildError, RowReject } from '../errors.ts';
import type { SourceSpec } from '../manifest.ts';
import type { Layout } from '../layouts/types.ts';
import { openRecords } from './read.ts';
import type { Reconciler, SourceTally } from './reconcile.ts';

/** Receives each parsed row with its line; may throw RowReject (e.g. a duplicate key) to reject it. */
export type RowSink<Row> = (row: Row, line: number) => void;

/**
 * Streams one manifest source through its layout into `sink`, reconciling every row.
 * Missing files and missing required columns fail the build with the file, column and manifest key.
 */
export async function ingestSource<Row>(spec: SourceSpec, layout: Layout<Row>, sink: RowSink<Row>, reconciler: Reconciler, extraFields: string[] = []): Promise<SourceTally> {
  const source = await openRecords(spec.path, spec.key);
  const { header } = source;
  const columnIndex = resolveColumns(spec, layout, header, extraFields);
  source.limitFields(Math.max(...columnIndex.values()) + 1);
  const tally = reconciler.tally(spec.key, spec.path);
  const requiredIndexes = Object.entries(layout.fields).filter(([, f]) => f.required).map(([name]) => columnIndex.get(name)!);
  const maxRequired = Math.max(-1, ...requiredIndexes);
  let values: string[] = [];
  const read = (field: string): string => {
    const index = columnIndex.get(field);
    if (index === undefined) return '';
    const value = values[index];
    return value === undefined ? '' : value.trim();
  };
  for await (const batch of source.batches) {
    for (const record of batch) {
      tally.read++;
      values = record.values;
      try {
        // A row shorter than the header was cut off: even if the fields we need are there, it is not trusted.
        if (record.fieldCount < header.length || values.length <= maxRequired) {
          throw new RowReject(`row has ${record.fieldCount} fields, the header has ${header.length}`);
        }
        sink(layout.parse(read, header, spec.options), record.line);
        tally.landed++;
      } catch (error) {
        if (!(error instanceof RowReject)) throw error;
        reconciler.reject(tally, record.line, error.message, error.kind);
      }
    }
  }
  return tally;
}

/** Maps each layout field to its column: manifest override first, then the layout's aliases. */
function resolveColumns(spec: SourceSpec, layout: Layout<unknown>, header: string[], extraFields: string[]): Map<string, number> {
  const byName = new Map<string, number>();
  header.forEach((name, index) => {
    const key = name.toLowerCase();
    if (!byName.has(key)) byName.set(key, index);
  });
  const columns = new Map<string, number>();
  const fields = [...Object.entries(layout.fields), ...extraFields.map((name) => [name, { aliases: [], required: true }] as const)];
  for (const [field, fieldSpec] of fields) {
    const override = spec.columns[field];
    const candidates = override ? [override] : fieldSpec.aliases;
    const index = candidates.map((name) => byName.get(name.toLowerCase())).find((i) => i !== undefined);
    if (index !== undefined) {
      columns.set(field, index);
    } else if (fieldSpec.required) {
      const wanted = candidates.length ? candidates.map((c) => JSON.stringify(c)).join(' or ') : `(none given)`;
      throw new BuildError(
        `source "${spec.key}" (${spec.path}): required column ${wanted} for field "${field}" of layout ${layout.name} is not in the header. ` +
          `Set sources.${spec.key}.columns.${field} in the manifest to the column that holds it. Header: ${header.slice(0, 12).join(', ')}${header.length > 12 ? ', ...' : ''}`,
      );
    }
  }
  return columns;
}

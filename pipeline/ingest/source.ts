import { BuildError, RowReject } from '../base/errors.ts';
import type { SourceSpec } from '../config/manifest.ts';
import type { Layout } from '../layouts/types.ts';
import type { ParsePlan } from './parse.ts';
import { silentProgress, type ProgressFactory } from '../../core/progress.ts';
import { openRecords, type ReadOptions, type RecordSource } from './read.ts';
import type { Reconciler, SourceTally } from './reconcile.ts';

/** Receives each parsed row with its line; may throw RowReject (e.g. a duplicate key) to reject it. */
export type RowSink<Row> = (row: Row, line: number) => void;

/** How sources are read (see ReadOptions) and where progress goes. */
export interface IngestOptions extends ReadOptions {
  progress?: ProgressFactory;
  /** Opens a source file as records instead of `openRecords`: tests pass the reader the fast one replaced, to hold it to. */
  open?: (file: string, sourceKey: string) => Promise<RecordSource>;
}

/**
 * Streams one manifest source through its layout into `sink`, reconciling every row.
 * Missing files and missing required columns fail the build with the file, column and manifest key.
 */
export async function ingestSource<Row>(
  spec: SourceSpec,
  layout: Layout<Row>,
  sink: RowSink<Row>,
  reconciler: Reconciler,
  extraFields: string[] = [],
  options: IngestOptions = {},
): Promise<SourceTally> {
  const source = await (options.open ? options.open(spec.path, spec.key) : openRecords(spec.path, spec.key, options));
  const progress = (options.progress ?? silentProgress)(spec.key);
  try {
    const { header } = source;
    const columnIndex = resolveColumns(spec, layout, header, extraFields);
    // Only the columns the layout names are decoded; each field reads its column's slot in the batch.
    const columns = [...new Set(columnIndex.values())];
    const requiredIndexes = Object.entries(layout.fields)
      .filter(([, f]) => f.required)
      .map(([name]) => columnIndex.get(name)!);
    const plan: ParsePlan = {
      layout: layout.name,
      header,
      options: spec.options,
      columns,
      slots: [...columnIndex].map(([field, index]) => [field, columns.indexOf(index)]),
      maxRequired: Math.max(-1, ...requiredIndexes),
    };
    const tally = reconciler.tally(spec.key, spec.path);
    // Records come back parsed, in file order; the sink (which may still reject, e.g. a duplicate key) runs here.
    for await (const parsed of source.parse(layout, plan)) {
      const { lines, rows, rejects } = parsed;
      let next = 0;
      let rejected = 0;
      for (let i = 0; i < parsed.count; i++) {
        tally.read++;
        if (rejected < rejects.length && rejects[rejected].record === i) {
          const { reason, kind, code } = rejects[rejected++];
          reconciler.reject(tally, lines[i], reason, kind, code);
          continue;
        }
        try {
          sink(rows[next++], lines[i]);
          tally.landed++;
        } catch (error) {
          if (!(error instanceof RowReject)) throw error;
          reconciler.reject(tally, lines[i], error.message, error.kind, error.code);
        }
      }
      const at = source.progress();
      progress.update(tally.read, at.textBytes, at.fraction);
    }
    return tally;
  } finally {
    progress.done();
    source.close();
  }
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

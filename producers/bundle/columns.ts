import { BuildError } from '../../pipeline/base/errors.ts';
import type { Layout } from '../../pipeline/layouts/types.ts';
import type { SourceSpec } from '../../pipeline/config/manifest.ts';

/** A column of the original file that the build reads, by its position and its (cleaned) header name. */
export interface KeptColumn {
  index: number;
  name: string;
}

/**
 * The columns of `header` the build reads for `spec`: for each layout field (and, for layouts with dynamic
 * fields such as acs_zcta, each field the manifest maps) the manifest's override or else the first alias
 * present, matched case-insensitively with the first of duplicate names winning. This mirrors the column
 * resolution of pipeline/ingest/source.ts; test/public-bundle.test.ts proves the two agree by building both ways.
 * Returned in the file's own order.
 */
export function keptColumns(spec: SourceSpec, layout: Layout<unknown>, header: string[]): KeptColumn[] {
  const byName = new Map<string, number>();
  header.forEach((name, index) => {
    if (!byName.has(name.toLowerCase())) byName.set(name.toLowerCase(), index);
  });
  const dynamic = layout.dynamicFields ? Object.keys(spec.columns).filter((field) => !(field in layout.fields)) : [];
  const fields = [...Object.entries(layout.fields), ...dynamic.map((field) => [field, { aliases: [], required: true }] as const)];
  const kept = new Set<number>();
  for (const [field, fieldSpec] of fields) {
    const candidates = spec.columns[field] ? [spec.columns[field]] : fieldSpec.aliases;
    const index = candidates.map((name) => byName.get(name.toLowerCase())).find((i) => i !== undefined);
    if (index !== undefined) kept.add(index);
    else if (fieldSpec.required) {
      throw new BuildError(
        `source "${spec.key}" (${spec.path}): no column ${candidates.map((c) => JSON.stringify(c)).join(' or ')} for field "${field}" of layout ${layout.name}; the build could not read this file either. Fix sources.${spec.key}.columns in the manifest.`,
      );
    }
  }
  return [...kept].sort((a, b) => a - b).map((index) => ({ index, name: header[index] }));
}

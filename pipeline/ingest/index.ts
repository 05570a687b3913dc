import { BuildError } from '../base/errors.ts';
import { collectGarbage } from '../base/memory.ts';
import type { Manifest } from '../config/manifest.ts';
import { LAYOUT_ORDER, LAYOUTS } from '../layouts/index.ts';
import { specialtyOfTaxonomy } from '../layouts/providers.ts';
import type { Layout } from '../layouts/types.ts';
import { emptyIngested, rowFiling, type Ingested, type ProviderSink } from './ingested.ts';
import type { Reconciler } from './reconcile.ts';
import { ingestSource, type IngestOptions } from './source.ts';
import { ZctaOfZip } from './zcta-of-zip.ts';

/** Rows read from one file above which its garbage is collected before the next file (a full collection costs a fraction of a second). */
const LARGE_SOURCE_ROWS = 100_000;

/**
 * Reads every manifest source, in the layouts' reading order (layouts/index.ts), into memory (ingested.ts says where each layout's rows go),
 * except the provider files, whose rows go to `providers` as they are read.
 */
export async function ingestAll(
  manifest: Manifest,
  providers: ProviderSink,
  reconciler: Reconciler,
  log: (line: string) => void,
  options: IngestOptions = {},
): Promise<Ingested> {
  const data = emptyIngested();
  if (!manifest.sources.some((s) => s.layout === 'gazetteer_zcta')) {
    throw new BuildError(
      `manifest ${manifest.file} names no source with layout gazetteer_zcta: the ZCTA Gazetteer defines the ZIP codes to score. Add one under "sources".`,
    );
  }
  let zctaTable: ZctaOfZip | null = null;
  const filing = {
    providers,
    // Built at the first provider file: the crosswalks and the Gazetteer are read before it (LAYOUT_ORDER).
    zctaOf: (zip: string): string | null => (zctaTable ??= new ZctaOfZip(data.zipToZcta, data.zctas)).of(zip),
    // The NUCC code set is read before the provider files (LAYOUT_ORDER), so a provider's specialty is known as it lands.
    specialtyOf: (code: string | null): string => {
      const row = code === null ? undefined : data.taxonomy.get(code);
      return row ? specialtyOfTaxonomy(row) : '';
    },
  };
  const ordered = [...manifest.sources].sort((a, b) => LAYOUT_ORDER.indexOf(a.layout) - LAYOUT_ORDER.indexOf(b.layout));
  for (const spec of ordered) {
    const list = data.sourcesByLayout.get(spec.layout) ?? [];
    list.push(spec);
    data.sourcesByLayout.set(spec.layout, list);
    const started = Date.now();
    const { sink, extraFields } = rowFiling(spec, data, filing);
    const tally = await ingestSource(spec, LAYOUTS.get(spec.layout) as Layout<never>, sink, reconciler, extraFields, options);
    // A large file leaves its row objects behind as garbage; the next file's reading would pile onto them
    // (a national build's memory climbed 400 MB from the end of NPPES into Doctors and Clinicians).
    if (tally.read >= LARGE_SOURCE_ROWS) collectGarbage();
    log(
      `  ${spec.key.padEnd(24)} ${String(tally.read).padStart(9)} read ${String(tally.landed).padStart(9)} landed ${String(tally.rejected).padStart(8)} rejected  ${((Date.now() - started) / 1000).toFixed(1)}s`,
    );
  }
  return data;
}

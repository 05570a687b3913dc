import path from 'node:path';
import type { Command } from 'commander';
import { PACKAGE_ROOT } from '../../core/package.ts';

export const DEFAULT_FETCH_OUT = 'raw/national';

/** `hcas fetch`: the official national files -> raw/national/, and the manifest hcas build reads. */
export function registerFetch(program: Command): void {
  program
    .command('fetch')
    .description('Download the official national files (NPPES, CMS, Census, CDC, ...) and write the manifest that builds from them')
    .option('--out <dir>', 'folder for the files, fetched.json and manifest.json', DEFAULT_FETCH_OUT)
    .option('--only <keys>', 'download only these sources (comma-separated manifest keys); the others keep what earlier runs fetched')
    .option('--sources <file>', 'source list (JSON): addresses, layouts, checks', path.join(PACKAGE_ROOT, 'raw/national/sources.json'))
    .option('--quiet', 'no progress, only the summary line')
    .addHelpText(
      'after',
      '\nEnvironment: CENSUS_API_KEY (ACS tables from the Census API), HUD_API_TOKEN (HUD ZIP-county crosswalk);\n' +
        'without them the bundled extracts in raw/public stand in.\n\nExamples:\n  hcas fetch && hcas build --manifest raw/national/manifest.json\n  hcas fetch --only nppes,doctors_clinicians',
    )
    .action(async (options: { out: string; only?: string; sources: string; quiet?: boolean }) => {
      // Loaded on demand: the HTTP client and the layouts, which other commands do not need.
      const [{ fetchNational }, { byteProgress }] = await Promise.all([import('../fetch/index.ts'), import('../../core/progress.ts')]);
      const started = Date.now();
      const only = options.only?.split(',').map((key) => key.trim()).filter(Boolean);
      const summary = await fetchNational({
        sources: options.sources,
        out: options.out,
        only,
        progress: byteProgress({ mode: options.quiet ? 'silent' : 'auto' }),
        log: options.quiet ? undefined : (line) => console.log(line),
      });
      const stand = Object.values(summary.fallbacks).flat().length;
      const absent = Object.keys(summary.notIncluded);
      console.log(
        `wrote ${path.relative(process.cwd(), summary.manifest) || summary.manifest}: ${summary.fetched.length} official files` +
          `${stand ? `, ${stand} bundled extracts standing in` : ''}${absent.length ? `, ${absent.length} left out (${absent.join(', ')})` : ''}` +
          ` in ${((Date.now() - started) / 1000).toFixed(1)} s; next: hcas build --manifest ${path.relative(process.cwd(), summary.manifest) || summary.manifest}`,
      );
    });
}

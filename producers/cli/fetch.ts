import path from 'node:path';
import type { Command } from 'commander';
import type { CommandIo } from '../../core/command.ts';
import { PACKAGE_ROOT } from '../../core/package.ts';
import { LOG_FORMAT_HELP, progressMode } from '../../core/progress.ts';
import { logLines, shownPath } from '../../core/log-lines.ts';

/** Where the national files go: beside the package's other raw data, whatever the working directory. */
export const DEFAULT_FETCH_OUT = path.join(PACKAGE_ROOT, 'raw/national');

/** `hcas fetch`: the official national files -> raw/national/, and the manifest hcas build reads. */
export function registerFetch(program: Command, io: CommandIo): void {
  program
    .command('fetch')
    .description('Download the official national files (NPPES, CMS, Census, CDC, ...) and write the manifest that builds from them')
    .option('--out <dir>', 'folder for the files, fetched.json and manifest.json (default raw/national in the hcas folder)')
    .option('--only <keys>', 'download only these sources (comma-separated manifest keys); the others keep what earlier runs fetched')
    .option('--sources <file>', 'source list (JSON): addresses, layouts, checks (default raw/national/sources.json in the hcas folder)')
    .option('--quiet', 'no progress, only the summary line')
    .option('--log-format <text|json>', LOG_FORMAT_HELP)
    .addHelpText(
      'after',
      '\nEnvironment: CENSUS_API_KEY (ACS tables from the Census API), HUD_API_TOKEN (HUD ZIP-county crosswalk);\n' +
        'without them the bundled extracts in raw/public stand in. Then build from what it wrote:\n' +
        'hcas build --manifest raw/national/manifest.json --out dist-api/national.sqlite (about 3 to 5 minutes on 2 cores:\n' +
        'README, "Building from the national files").\n\n' +
        'Examples:\n  hcas fetch\n  hcas fetch --only nppes,doctors_clinicians --log-format json',
    )
    .action(async (options: { out?: string; only?: string; sources?: string; quiet?: boolean; logFormat?: string }) => {
      const mode = progressMode(options);
      const print = logLines(mode, io.stdout);
      // Loaded on demand: the HTTP client and the layouts, which other commands do not need.
      const [{ fetchNational }, { byteProgress }] = await Promise.all([import('../fetch/index.ts'), import('../../core/progress.ts')]);
      const started = Date.now();
      const only = options.only
        ?.split(',')
        .map((key) => key.trim())
        .filter(Boolean);
      const summary = await fetchNational({
        sources: options.sources ?? path.join(PACKAGE_ROOT, 'raw/national/sources.json'),
        out: options.out ?? DEFAULT_FETCH_OUT,
        only,
        progress: byteProgress({ mode, stream: io.stderr }),
        env: io.env,
        log: mode === 'silent' ? undefined : print.line,
      });
      const stand = Object.values(summary.fallbacks).flat().length;
      const absent = Object.keys(summary.notIncluded);
      const seconds = (Date.now() - started) / 1000;
      print.summary(
        `wrote ${shownPath(summary.manifest)}: ${summary.fetched.length} official files` +
          `${stand ? `, ${stand} bundled extracts standing in` : ''}${absent.length ? `, ${absent.length} left out (${absent.join(', ')})` : ''}` +
          ` in ${seconds.toFixed(1)} s; next: hcas build --manifest ${shownPath(summary.manifest)} --out dist-api/national.sqlite`,
        {
          event: 'fetched',
          manifest: summary.manifest,
          official_files: summary.fetched.length,
          standing_in: stand,
          left_out: absent,
          seconds,
        },
      );
    });
}

import path from 'node:path';
import type { Command } from 'commander';
import type { CommandIo } from '../../core/command.ts';
import { DEFAULT_DATABASE, databaseFile } from '../../core/dataset.ts';
import { PACKAGE_ROOT } from '../../core/package.ts';
import { LOG_FORMAT_HELP, progressMode } from '../../core/progress.ts';
import { logLines, shownPath } from '../../core/log-lines.ts';

/** The default build's manifest: the bundled real data plus the synthetic providers of `hcas sample`. */
export const DEFAULT_MANIFEST = path.join(PACKAGE_ROOT, 'raw/manifests/sample.json');

interface BuildCliOptions {
  manifest?: string;
  out?: string;
  root?: string;
  quiet?: boolean;
  logFormat?: string;
  allowPartialProviders?: boolean;
  ifChanged?: boolean;
}

/** `hcas build`: raw files named by a manifest -> dist-api/hcas.sqlite. */
export function registerBuild(program: Command, io: CommandIo): void {
  program
    .command('build')
    .description('Build the scored SQLite database from the raw files a sources manifest names')
    .option('--manifest <file>', 'sources manifest (JSON) (default: raw/manifests/sample.json in the hcas folder)')
    .option(
      '--out <file>',
      `output database (default: $HCAS_DB, else ${DEFAULT_DATABASE} in the hcas folder); rejected rows go beside it, to NAME.rejects.csv`,
    )
    .option('--root <dir>', 'folder the manifest\'s file paths are relative to (overrides its "root")')
    .option(
      '--allow-partial-providers',
      'when the provider files cover the country only partly, publish scores without a provider component instead of failing',
    )
    .option(
      '--if-changed',
      'build only when the output is missing or its build id differs from the one its inputs and code give now (npm start uses this)',
    )
    .option('--quiet', 'print only the summary line: no stage log, no progress')
    .option('--log-format <text|json>', LOG_FORMAT_HELP)
    .addHelpText(
      'after',
      [
        '',
        'A long read shows rows, MB/s, percent and ETA on stderr: a bar on a terminal, a line every 5 s otherwise.',
        '',
        'Examples:',
        '  hcas sample && hcas build',
        '  hcas build --if-changed        # reuses the build when nothing it depends on changed',
      ].join('\n'),
    )
    .action(async (options: BuildCliOptions) => {
      const mode = progressMode(options);
      const out = databaseFile(options.out, io.env);
      const manifest = options.manifest ?? DEFAULT_MANIFEST;
      const log = logLines(mode, io.stdout);
      // Loaded on demand: the whole pipeline, which `hcas --help` does not need.
      const [{ build }, { currentBuild, planBuild }, { progressReporter }, { refuseStaleCompiledCode }] = await Promise.all([
        import('../run/index.ts'),
        import('../run/plan.ts'),
        import('../../core/progress.ts'),
        import('../base/code.ts'),
      ]);
      refuseStaleCompiledCode('build');
      const planned = { manifest, out, root: options.root, allowPartialProviders: options.allowPartialProviders };
      // Read once: what --if-changed decides on is what the build then uses.
      const plan = planBuild(planned);
      if (options.ifChanged) {
        const current = await currentBuild(planned, plan);
        if (current.upToDate) {
          log.summary(
            `${shownPath(out)} is up to date (build ${current.buildId}): its inputs, configuration and code are unchanged; nothing built`,
            { event: 'up_to_date', out, build_id: current.buildId },
          );
          return;
        }
      }
      const summary = await build(
        { ...planned, log: mode === 'silent' ? undefined : log.line, progress: progressReporter({ mode, stream: io.stderr }) },
        plan,
      );
      log.summary(
        `built ${shownPath(summary.out)} (build ${summary.buildId}): ${summary.zips} ZIP codes, ${summary.providers} providers, ${summary.facilities} facilities in ${summary.seconds.toFixed(1)} s; rejected rows in ${shownPath(summary.rejectsFile)}`,
        {
          event: 'built',
          out: summary.out,
          build_id: summary.buildId,
          zips: summary.zips,
          providers: summary.providers,
          facilities: summary.facilities,
          seconds: summary.seconds,
          rejects: summary.rejectsFile,
        },
      );
    });
}

import path from 'node:path';
import type { Command } from 'commander';
import type { CommandIo } from '../../../core/command.ts';
import { PACKAGE_ROOT } from '../../../core/package.ts';
import { countProgress, formatBytes, LOG_FORMAT_HELP, progressMode } from '../../../core/progress.ts';
import { API_BASE, ALL_ROUTES } from '../../api/index.ts';
import { exportStatic, type StaticExportSummary } from '../../static/export.ts';
import { endpointFilter, takesQuery } from '../../static/targets.ts';
import { DB_HELP, openApi } from '../api-client.ts';
import { CliError } from '../errors.ts';
import { accessFor } from '../limits.ts';

/** Where the export goes by default: beside the default database, in the hcas folder. */
export const DEFAULT_STATIC_FOLDER = 'dist-api/static';

interface ExportStaticOptions {
  db?: string;
  out?: string;
  providers?: boolean;
  plan?: string;
  plans?: string;
  endpoints?: string;
  /** False with --no-lists. */
  lists: boolean;
  indexName: string;
  quiet?: boolean;
  logFormat?: string;
}

/** `hcas export-static`: the public answers as files for a static host or CDN (README, "Self-hosting": static API). */
export function registerExportStatic(program: Command, io: CommandIo): void {
  program
    .command('export-static')
    .description(
      'Write every answer that takes no query parameter as a file, byte for byte what the server sends, for nginx or a static host',
    )
    .option('--out <folder>', `the export's folder, replaced as a whole (default: ${DEFAULT_STATIC_FOLDER} in the hcas folder)`)
    .option('--db <file>', DB_HELP)
    .option('--providers', "also every provider's profile (one file each: 4 million at national scale)")
    .option('--plan <id>', 'only the endpoints this plan opens (and the open ones), e.g. free: what callers without a key get')
    .option('--endpoints <patterns>', 'only these endpoints, as plan files name them: widget-score/*,/widget/* (comma-separated)')
    .option('--plans <a|b|file>', 'the plan file of --plan: preset a (default, or $HCAS_PLANS), preset b, or a JSON file')
    .option('--no-lists', "leave out the lists' first pages (and the GeoJSON): for a host that ignores query strings")
    .option(
      '--index-name <name>',
      'the file a folder path is answered from: index.json, or index.html for hosts that only know that name',
      'index.json',
    )
    .option('--quiet', 'no progress')
    .option('--log-format <text|json>', LOG_FORMAT_HELP)
    .addHelpText(
      'after',
      [
        '',
        'Without options: every answer of the build into dist-api/static (the default build: about 220,000 answers,',
        'a minute or two). Each answer is a file at its path (api/v1/health-scores/10001/index.json answers',
        '/api/v1/health-scores/10001/) with .gz and .br beside it (1 KB and larger, as the server compresses), and',
        "hcas-manifest.json lists every file's size and SHA-256. An answer the previous export in the folder already",
        'had is kept as it was (a hard link), so rsync and aws s3 sync upload only what changed.',
        'deploy/nginx/static.conf serves the folder and hands every other request (query strings, API keys) to the',
        'replicas. Answers from files are not metered: --plan free keeps the paid endpoints with the replicas.',
        '',
        'Examples:',
        "  hcas export-static --endpoints 'states/,score-types/,rankings/*,blog/*' --out /tmp/hcas-reference",
        "  hcas export-static --plan free --endpoints 'states/,rankings/*' --out /tmp/hcas-free   # states/ alone: rankings are paid",
        '  jq -c .totals /tmp/hcas-reference/hcas-manifest.json',
      ].join('\n'),
    )
    .action(async (options: ExportStaticOptions) => {
      const mode = progressMode(options);
      if (options.plans !== undefined && options.plan === undefined)
        throw new CliError('--plans chooses the plan file of --plan: add --plan ID, or leave out --plans');
      if (!/^[^/\\]+$/.test(options.indexName) || options.indexName.startsWith('.'))
        throw new CliError(`--index-name must be a file name such as index.json or index.html, got ${options.indexName}`);
      const filters = [
        options.plan === undefined ? undefined : planFilter(options.plan, options.plans, io.env),
        options.endpoints === undefined ? undefined : endpointFilter(patternList(options.endpoints), options.providers === true),
        options.lists ? undefined : (routePath: string) => !takesQuery(routePath),
      ].filter((filter) => filter !== undefined);
      const now = new Date();
      const api = openApi(options.db, io.env, { cacheBytes: 0, now: () => now });
      try {
        const summary = await exportStatic({
          api,
          now,
          out: options.out ?? path.join(PACKAGE_ROOT, DEFAULT_STATIC_FOLDER),
          indexName: options.indexName,
          providers: options.providers === true,
          routeFilter: (routePath) => filters.every((filter) => filter(routePath)),
          plan: options.plan,
          progress: countProgress('answers', { mode, stream: io.stderr }),
        });
        report(summary, mode === 'json', io);
      } finally {
        api.retire();
      }
    });
}

/** The routes a plan of the plan file opens, the open ones included (the API root, openapi.json, the widget's script). */
function planFilter(planId: string, plans: string | undefined, env: NodeJS.ProcessEnv): (routePath: string) => boolean {
  const access = accessFor({ plans }, env, ALL_ROUTES);
  const known = access.planSet.plans.map((plan) => plan.id);
  if (!known.includes(planId)) throw new CliError(`--plan must be one of ${known.join(', ')} (${access.planSet.source}), got ${planId}`);
  return (routePath) => {
    const route = access.of(routePath);
    if (route === undefined) throw new Error(`${routePath} is not in the route table (${API_BASE})`);
    return route.open || route.plans.has(planId);
  };
}

/** `a/, b/*` as patterns; an empty list is a usage error. */
function patternList(text: string): string[] {
  const patterns = text
    .split(',')
    .map((pattern) => pattern.trim())
    .filter(Boolean);
  if (patterns.length === 0) throw new CliError(`--endpoints must name route paths such as widget-score/*, got ${JSON.stringify(text)}`);
  return patterns;
}

/** The closing line: what was written, what changed since the previous export, what stays with the server. */
function report(summary: StaticExportSummary, json: boolean, io: CommandIo): void {
  const { out, buildId, answers, files, bytes, unchanged, changed, added, removed, notFound, validUntil, seconds } = summary;
  const shown = path.relative(process.cwd(), out).startsWith('..') ? out : path.relative(process.cwd(), out) || '.';
  const text = [
    `exported ${answers.toLocaleString('en-US')} answer${answers === 1 ? '' : 's'} of build ${buildId} into ${shown} in ${seconds.toFixed(1)} s:`,
    `${files.toLocaleString('en-US')} files, ${formatBytes(bytes)} with the .gz and .br;`,
    `${unchanged.toLocaleString('en-US')} unchanged since the previous export, ${changed.toLocaleString('en-US')} changed, ${added.toLocaleString('en-US')} added, ${removed.toLocaleString('en-US')} files removed;`,
    `${notFound.toLocaleString('en-US')} paths answer 404 and are left to the server`,
  ].join(' ');
  const expires = validUntil === null ? '' : `; the blog's answers change at ${validUntil} (a scheduled post): export again then`;
  if (!json) {
    io.stdout.write(`${text}${expires}\n`);
    return;
  }
  const fields = {
    event: 'exported',
    out,
    build_id: buildId,
    answers,
    files,
    bytes,
    unchanged,
    changed,
    added,
    removed,
    not_found: notFound,
    valid_until: validUntil,
    seconds,
  };
  io.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), ...fields, message: `${text}${expires}` })}\n`);
}

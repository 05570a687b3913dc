import path from 'node:path';
import { Option, type Command } from 'commander';
import type { CommandIo } from '../../../core/command.ts';
import { PACKAGE_ROOT } from '../../../core/package.ts';
import { countProgress, formatBytes, LOG_FORMAT_HELP, progressMode } from '../../../core/progress.ts';
import { ALL_ROUTES } from '../../api/index.ts';
import type { AccessTable } from '../../auth/access.ts';
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
  publishPaidAnswers?: boolean;
  plans?: string;
  /** Hidden: the old way to ask for the anonymous tier (see checkPlan). */
  plan?: string;
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
      'Write every answer that callers without a key may read and that takes no query parameter as a file, byte for byte what the server sends, for nginx or a static host',
    )
    .option('--out <folder>', `the export's folder, replaced as a whole (default: ${DEFAULT_STATIC_FOLDER} in the hcas folder)`)
    .option('--db <file>', DB_HELP)
    .option('--providers', "also every provider's profile (one file each: 4 million at national scale)")
    .option(
      '--publish-paid-answers',
      "also the paid plans' endpoints, given to anyone who can reach the files (no key, no quota); by default they stay with the server",
    )
    .option(
      '--plans <a|b|file>',
      'the plan file that says what callers without a key may read: preset a (default, or $HCAS_PLANS), preset b, or a JSON file',
    )
    .addOption(new Option('--plan <id>').hideHelp())
    .option('--endpoints <patterns>', "only these endpoints, as the API root names them: 'widget-score/{zip}/,/widget/*' (comma-separated)")
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
        'Without options: every answer of the build that callers without a key may read (the open routes and the Free',
        "plan's under plan list A: about 143,000 answers of the default build, a minute or two) into dist-api/static.",
        'Each answer is a file at its path (api/v1/health-scores/10001/index.json answers /api/v1/health-scores/10001/)',
        'with .gz and .br beside it (1 KB and larger, as the server compresses); _headers gives Netlify and Cloudflare',
        "Pages the server's headers, and hcas-manifest.json lists every file's size and SHA-256. An answer the previous",
        'export in the folder already had is kept as it was (a hard link), so rsync and aws s3 sync upload only what',
        'changed. Files are read by anyone, with no key and no quota: the paid endpoints (all-scores, census, the',
        'rankings, GeoJSON under plan list A) stay with the server, which asks for a key, unless --publish-paid-answers.',
        'deploy/nginx/static.conf serves the folder and hands every other request to the replicas; hcas preview serves',
        'it on this machine as a static host would.',
        '',
        'Examples:',
        "  hcas export-static --endpoints 'states/,score-types/,blog/*,widget-score/{zip}/' --out hcas-reference",
        "  hcas export-static --publish-paid-answers --endpoints 'rankings/*' --out hcas-rankings   # paid, for anyone",
        '  jq -c .totals hcas-reference/hcas-manifest.json',
      ].join('\n'),
    )
    .action(async (options: ExportStaticOptions) => {
      const mode = progressMode(options);
      if (!/^[^/\\]+$/.test(options.indexName) || options.indexName.startsWith('.'))
        throw new CliError(`--index-name must be a file name such as index.json or index.html, got ${options.indexName}`);
      if (options.plans !== undefined && options.publishPaidAnswers)
        throw new CliError("--plans has no effect with --publish-paid-answers, which writes every plan's endpoints: leave one out");
      const access = accessFor({ plans: options.plans }, io.env, ALL_ROUTES);
      if (options.plan !== undefined) checkPlan(options.plan, options.publishPaidAnswers === true, access);
      const filters = [
        options.endpoints === undefined ? undefined : endpointFilter(patternList(options.endpoints), options.providers === true),
        options.lists ? undefined : (routePath: string) => !takesQuery(routePath),
      ].filter((filter) => filter !== undefined);
      const now = new Date();
      const api = openApi(options.db, io.env, ALL_ROUTES, { cacheBytes: 0, now: () => now });
      try {
        const summary = await exportStatic({
          api,
          now,
          out: options.out ?? path.join(PACKAGE_ROOT, DEFAULT_STATIC_FOLDER),
          indexName: options.indexName,
          providers: options.providers === true,
          access,
          paidAnswers: options.publishPaidAnswers === true,
          routeFilter: (routePath) => filters.every((filter) => filter(routePath)),
          progress: countProgress('answers', { mode, stream: io.stderr }),
        });
        report(summary, mode === 'json', io);
      } finally {
        api.retire();
      }
    });
}

/**
 * `--plan ID` chose the plan whose endpoints were written when the export wrote every endpoint by default. The
 * plan of callers without a key (`--plan free`, the old README's advice) is what the export now writes anyway,
 * so it is accepted; a paid plan would give its answers to anyone, so it is refused, naming the flag that says so.
 */
function checkPlan(planId: string, paidAnswers: boolean, access: AccessTable): void {
  const { planSet } = access;
  const anonymous = planSet.anonymous.access;
  const plan = planSet.plans.find((candidate) => candidate.id === planId);
  if (plan === undefined)
    throw new CliError(`--plan must be one of ${planSet.plans.map((p) => p.id).join(', ')} (${planSet.source}), got ${planId}`);
  if (plan === anonymous && !paidAnswers) return;
  throw new CliError(
    plan === anonymous
      ? `--plan ${planId} and --publish-paid-answers contradict each other: leave out --plan, which only names what the export writes without --publish-paid-answers`
      : `--plan ${planId} would give ${plan.name} answers to anyone who can reach the files: say so with --publish-paid-answers (and --endpoints to choose them); without it the export writes what callers without a key may read (${anonymous.name})`,
  );
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
  const { out, buildId, answers, files, bytes, unchanged, changed, added, removed, notFound, paidLeft, validUntil, seconds } = summary;
  const shown = path.relative(process.cwd(), out).startsWith('..') ? out : path.relative(process.cwd(), out) || '.';
  const count = (n: number) => n.toLocaleString('en-US');
  const paid =
    paidLeft === 0
      ? ''
      : `; ${count(paidLeft)} paid endpoint${paidLeft === 1 ? ' is' : 's are'} left to the server, which asks for a key (--publish-paid-answers gives them to anyone)`;
  const text = [
    `exported ${count(answers)} answer${answers === 1 ? '' : 's'} of build ${buildId} into ${shown} in ${seconds.toFixed(1)} s:`,
    `${count(files)} files, ${formatBytes(bytes)} with the .gz and .br;`,
    `${count(unchanged)} unchanged since the previous export, ${count(changed)} changed, ${count(added)} added, ${count(removed)} files removed;`,
    `${count(notFound)} paths answer 404 and are left to the server${paid}`,
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
    paid_left: paidLeft,
    valid_until: validUntil,
    seconds,
  };
  io.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), ...fields, message: `${text}${expires}` })}\n`);
}

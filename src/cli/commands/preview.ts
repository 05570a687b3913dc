import path from 'node:path';
import type { Command } from 'commander';
import type { CommandIo } from '../../../core/command.ts';
import { PACKAGE_ROOT } from '../../../core/package.ts';
import { LOG_FORMAT_HELP, progressMode } from '../../../core/progress.ts';
import { startPreview, type PreviewRequest } from '../../static/preview.ts';
import { CliError } from '../errors.ts';
import { DEFAULT_STATIC_FOLDER } from './export-static.ts';

interface PreviewFlags {
  host: string;
  port: string;
  quiet?: boolean;
  logFormat?: string;
}

/** `hcas preview`: an export served as a static host serves it (src/static/preview.ts), until Ctrl-C. */
export function registerPreview(program: Command, io: CommandIo): void {
  program
    .command('preview')
    .argument('[folder]', `an export of hcas export-static (default: ${DEFAULT_STATIC_FOLDER} in the hcas folder)`)
    .description('Serve an export of hcas export-static on this machine as a static host serves it: JSON as JSON, with CORS')
    .option('--host <address>', 'the address to listen on', '127.0.0.1')
    .option('--port <n>', 'the port (0 picks a free one)', '8080')
    .option('--quiet', 'no line per request')
    .option('--log-format <text|json>', LOG_FORMAT_HELP)
    .addHelpText(
      'after',
      [
        '',
        'Each answer is its file, with the headers the export wrote in _headers for its path (as Netlify and',
        "Cloudflare Pages apply them: the server's content type, CORS and caching, the map page's policy), a folder",
        "path answered from the export's index document (or index.html), the .gz or .br beside a file to clients that",
        'take it, and an ETag and Last-Modified from the file. As on a static host, a query string is ignored (the line',
        'of the request says so), a path the export has not gets a plain 404, and there are no keys, quotas or paid',
        'endpoints: hcas serve answers those. python3 -m http.server is no preview: it sends index.html as text/html',
        'without CORS and lists a folder with index.json.',
        '',
        'Examples:',
        '  hcas preview hcas-reference --port 0      # an export of hcas export-static --help; then curl -i URL/api/v1/states/',
      ].join('\n'),
    )
    .action(async (folder: string | undefined, flags: PreviewFlags) => {
      const mode = progressMode(flags);
      const port = Number(flags.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535)
        throw new CliError(`--port must be a whole number from 0 to 65535, got ${flags.port}`);
      const chosen = folder ?? path.join(PACKAGE_ROOT, DEFAULT_STATIC_FOLDER);
      const json = mode === 'json';
      const line = (fields: Record<string, unknown>, text: string) =>
        io.stdout.write(json ? `${JSON.stringify({ time: new Date().toISOString(), ...fields, message: text })}\n` : `${text}\n`);
      const log = (request: PreviewRequest) =>
        line(
          { event: 'request', ...request },
          `${request.method} ${request.path} ${request.status}${request.file ? ` ${request.file}` : ''}${request.note ? ` (${request.note})` : ''}`,
        );
      const preview = await startPreview({ folder: chosen, host: flags.host, port, log: mode === 'silent' ? undefined : log }).catch(
        (error: NodeJS.ErrnoException) => {
          if (error.code === 'EADDRINUSE' || error.code === 'EADDRNOTAVAIL')
            throw new CliError(
              `cannot listen on ${flags.host}:${port} (${error.code}): pass --port N (--port 0 picks a free one) or --host`,
            );
          throw error;
        },
      );
      const { manifest } = preview;
      line(
        { event: 'listening', url: preview.url, folder: chosen, build_id: manifest.build_id, index_name: manifest.index_name },
        `previewing ${chosen} (build ${manifest.build_id}, exported ${manifest.exported_at}) at ${preview.url} as a static host serves it; Ctrl-C stops`,
      );
      if (!preview.hostHeaders)
        io.stderr.write(
          `hcas: ${chosen} has no _headers (an export of an older hcas): files get the type of their name only; export again\n`,
        );
      if (manifest.index_name !== 'index.html')
        io.stderr.write(
          `hcas: this export answers folders from ${manifest.index_name}, as nginx's static.conf does; Netlify, Cloudflare Pages and GitHub Pages need --index-name index.html\n`,
        );
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await preview.close();
    });
}

import { copyFileSync, mkdirSync, renameSync } from 'node:fs';
import path from 'node:path';
import { WIDGET_SCRIPT_FILE, WIDGET_SCRIPT_PATH } from '../../core/widget.ts';

/**
 * Writes the embed script beside the output database (`dist-api/widget/v1/widget.js`), so the output folder
 * can be hosted statically with the script at the path the server uses. Returns the file written.
 */
export function emitWidgetScript(outDir: string): string {
  const file = path.join(outDir, ...WIDGET_SCRIPT_PATH.split('/').filter(Boolean));
  mkdirSync(path.dirname(file), { recursive: true });
  // Copied then renamed, so a server of the folder never sends half a script.
  const tmp = `${file}.tmp-${process.pid}`;
  copyFileSync(WIDGET_SCRIPT_FILE, tmp);
  renameSync(tmp, file);
  return file;
}

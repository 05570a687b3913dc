import path from 'node:path';
import { PACKAGE_ROOT } from './package.ts';

/**
 * Where the embed script is served (decisions.md, "Widget": `{widget_script_url}`). The build copies the
 * script to the same path under its output folder, so that folder can be hosted statically.
 */
export const WIDGET_SCRIPT_PATH = '/widget/v1/widget.js';

/** The script's source: hand-written browser JavaScript, served and copied as it is (no build step). */
export const WIDGET_SCRIPT_FILE = path.join(PACKAGE_ROOT, 'src/widget/widget.js');

#!/usr/bin/env node
// Which Node.js lines hcas runs on, checked before anything else loads: an older Node fails later and
// natively (better-sqlite3 13 is built for Node-API of Node 22+; on Node 20 it crashes the process), so every
// entry point (bin/hcas.js, `npm install`'s prepare step, `npm test`) refuses at once with one line instead.
// Plain JavaScript that any Node parses: the check must run on the versions it refuses.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The oldest release of each supported line; 22.12 is what commander 15 and vitest 5 need. */
export const MINIMUM = { major: 22, minor: 12 };
export const SUPPORTED_LINES = '22, 24 or 26';

/** One line saying why `version` (like process.versions.node) cannot run hcas and how to get one that can; null when it can. */
export function unsupportedNode(version = process.versions.node) {
  const [major, minor] = version.split('.').map(Number);
  if (major > MINIMUM.major || (major === MINIMUM.major && minor >= MINIMUM.minor)) return null;
  const script = fileURLToPath(new URL('use-node', import.meta.url));
  const relative = path.relative(process.cwd(), script);
  const useNode = relative.startsWith('..') || path.isAbsolute(relative) ? script : relative;
  return (
    `hcas: Node.js ${version} is not supported; hcas runs on Node.js ${SUPPORTED_LINES} (22.${MINIMUM.minor} or later). ` +
    `Install one from https://nodejs.org, or run \`eval "$(${useNode})"\` to put a pinned one first on PATH in this shell.`
  );
}

// Run as a script (`node bin/supported-node.js`): exit 3, the status of an incomplete installation (README, "Exit codes").
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const message = unsupportedNode();
  if (message) {
    process.stderr.write(`${message}\n`);
    process.exit(3);
  }
}

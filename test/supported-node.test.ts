import { execFileSync, spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: plain JavaScript without declarations (it must parse on the Node versions it refuses)
import { unsupportedNode } from '../bin/supported-node.js';
import { ROOT } from './helpers/cli.ts';

describe('the Node versions hcas runs on', () => {
  it.each(['22.12.0', '22.23.3', '24.21.0', '26.10.0', '27.0.0'])('%s is supported', (version) => {
    expect(unsupportedNode(version)).toBeNull();
  });

  it.each(['18.20.8', '20.20.2', '22.11.0', '21.7.3'])(
    '%s is refused in one line naming the supported lines and how to get one',
    (version) => {
      const message = unsupportedNode(version) as string;
      expect(message).toContain(`Node.js ${version} is not supported`);
      expect(message).toContain('22, 24 or 26');
      expect(message).toMatch(/https:\/\/nodejs\.org/);
      expect(message).toMatch(/eval "\$\(.*bin\/use-node\)"/);
      expect(message).not.toContain('\n');
    },
  );
});

/** A Node older than the supported lines on this machine (Debian's, or the machine's own), if there is one. */
function olderNode(): string | undefined {
  for (const candidate of ['/usr/bin/node', '/usr/local/bin/node', '/usr/bin/nodejs']) {
    try {
      const version = execFileSync(candidate, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim();
      if (unsupportedNode(version)) return candidate;
    } catch {
      // not there
    }
  }
  return undefined;
}

const older = olderNode();
describe.skipIf(!older)(`hcas on an older Node (${older ?? 'none on this machine'})`, () => {
  it('refuses at once: one line on stderr, exit 3, before loading the SQLite binding', () => {
    for (const args of [['--version'], ['serve'], ['build']]) {
      const result = spawnSync(older!, [path.join(ROOT, 'bin/hcas.js'), ...args], { encoding: 'utf8', cwd: ROOT });
      expect(result.status, result.stderr).toBe(3);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/^hcas: Node\.js \d+\.\d+\.\d+ is not supported; hcas runs on Node\.js 22, 24 or 26 .*\n$/);
      expect(result.stderr.split('\n')).toHaveLength(2);
    }
  });

  it('and so do npm test and npm install (their scripts check first)', () => {
    const result = spawnSync(older!, [path.join(ROOT, 'bin/supported-node.js')], { encoding: 'utf8', cwd: ROOT });
    expect(result.status).toBe(3);
    expect(result.stderr).toContain('bin/use-node');
  });
});
if (!older)
  console.warn('!! no Node older than 22.12 on this machine: the refusal of hcas on one is not run here (the unit tests above are)');

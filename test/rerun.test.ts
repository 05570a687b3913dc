import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { CommandEntry } from '../core/command.ts';
import { PIPELINE_COMMANDS } from '../pipeline/cli/index.ts';
import { missingRuntime } from '../src/cli/rerun.ts';
import { tempDir } from './helpers/files.ts';

const root = path.resolve(import.meta.dirname, '..');
const load = async () => () => {};
const commands: CommandEntry[] = [
  { names: ['build'], load, runtime: { nodeFlags: ['--max-semi-space-size=32', '--expose-gc'], env: { MALLOC_ARENA_MAX: '2' } } },
  { names: ['serve'], load },
];
const argv = (command: string) => ['node', 'hcas', command, '--quiet'];

describe('a command that needs startup flags runs again in a child that has them', () => {
  it('asks for the flags and variables the process lacks, for the command named in argv only', () => {
    expect(missingRuntime(argv('build'), commands, [], {})).toEqual({
      nodeFlags: ['--max-semi-space-size=32', '--expose-gc'],
      env: { MALLOC_ARENA_MAX: '2' },
    });
    expect(missingRuntime(argv('serve'), commands, [], {})).toBeNull();
    expect(missingRuntime(argv('nope'), commands, [], {})).toBeNull();
  });

  it('keeps what the user gave: a flag by name (command line or NODE_OPTIONS) and a variable already set', () => {
    expect(missingRuntime(argv('build'), commands, ['--max-semi-space-size=8'], { MALLOC_ARENA_MAX: '8' })).toEqual({
      nodeFlags: ['--expose-gc'],
      env: {},
    });
    expect(missingRuntime(argv('build'), commands, ['--expose-gc'], { NODE_OPTIONS: '--max-semi-space-size=64' })).toBeNull();
  });

  it('asks nothing of a process that already runs with the flags (the child itself), so it never loops', () => {
    expect(missingRuntime(argv('build'), commands, ['--max-semi-space-size=32', '--expose-gc'], {})).toBeNull();
  });

  it('asks nothing of a process under the inspector: the debugger stays attached to the work', () => {
    expect(missingRuntime(argv('build'), commands, ['--inspect-brk=9230'], {})).toBeNull();
  });

  it('hcas build asks for a larger young generation and for gc', () => {
    const build = PIPELINE_COMMANDS.find((c) => c.names.includes('build'))!;
    expect(build.runtime?.nodeFlags).toEqual(expect.arrayContaining(['--max-semi-space-size=32', '--expose-gc']));
  });

  /** A script that re-runs itself through rerunWith (the compiled module, as bin/hcas.js loads it). */
  function scriptFile(child: string): string {
    const script = path.join(tempDir(), 'rerun.mjs');
    const rerun = pathToFileURL(path.join(root, 'dist/src/cli/rerun.js')).href;
    writeFileSync(
      script,
      `import { rerunWith } from ${JSON.stringify(rerun)};
      if (process.execArgv.includes('--expose-gc')) { ${child} }
      else process.exitCode = await rerunWith({ nodeFlags: ['--expose-gc'], env: { HCAS_RERUN_TEST: 'set' } });`,
    );
    return script;
  }

  function rerunScript(child: string): ReturnType<typeof spawnSync> {
    return spawnSync(process.execPath, [scriptFile(child), 'an-argument'], { encoding: 'utf8', timeout: 20_000 });
  }

  it('passes the flags, the variables, the arguments and the output, and ends with the child exit status', () => {
    const result = rerunScript(
      `console.log(JSON.stringify({ gc: typeof gc, env: process.env.HCAS_RERUN_TEST, args: process.argv.slice(2) })); process.exitCode = 3;`,
    );
    expect(result.status).toBe(3);
    expect(JSON.parse(String(result.stdout))).toEqual({ gc: 'function', env: 'set', args: ['an-argument'] });
  });

  it('ends by the signal that ended the child', () => {
    const result = rerunScript(`process.kill(process.pid, 'SIGTERM');`);
    expect(result.signal).toBe('SIGTERM');
  });

  it('passes a signal sent to it on to the child (a supervisor stopping the build stops the work)', async () => {
    const parent = spawn(process.execPath, [scriptFile(`console.log(process.pid); setTimeout(() => {}, 20_000);`)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const childPid = await new Promise<number>((resolve) => parent.stdout.once('data', (chunk: Buffer) => resolve(Number(String(chunk)))));
    const ended = new Promise<NodeJS.Signals | null>((resolve) => parent.on('exit', (_code, signal) => resolve(signal)));
    parent.kill('SIGTERM');
    expect(await ended).toBe('SIGTERM');
    expect(() => process.kill(childPid, 0)).toThrow(); // the child is gone too
  });
});

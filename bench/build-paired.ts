/**
 * A build before and after a change, paired: the same `hcas build` of two checkouts, alternating, so both see
 * the same moments of a noisy host; wall time, CPU (user + system of the build and its children) and peak RSS
 * of each round, the medians and the after/before ratio of each.
 *   node bin/run-ts.js bench/build-paired.ts --before ../before [--manifest raw/manifests/shared-data.json] [--rounds 3]
 * The manifest is named relative to each checkout, so each builds what its own manifest said (a change of
 * manifest is part of the change). `--sample` writes each checkout's own synthetic sample first (`hcas sample`)
 * and builds it with raw/manifests/sample.json: the default build, as `npm start` makes it.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { median } from './lib.ts';

const { values } = parseArgs({
  options: {
    before: { type: 'string' },
    manifest: { type: 'string', default: 'raw/manifests/shared-data.json' },
    rounds: { type: 'string', default: '3' },
    sample: { type: 'boolean', default: false },
  },
});
if (!values.before) throw new Error('--before DIR: a checkout of the code before (with its npm install done) to build beside this one');
const checkouts = { before: path.resolve(values.before), after: path.resolve(import.meta.dirname, '..') };
const rounds = Number(values.rounds);

interface Round {
  wall: number;
  cpu: number;
  peakMb: number;
}

/** Runs `hcas` of a checkout under GNU time: wall, user + system seconds and peak RSS of it and its children. */
function hcas(root: string, args: string[]): Round {
  const child = spawnSync('/usr/bin/time', ['-f', '%e %U %S %M', process.execPath, path.join(root, 'bin/hcas.js'), ...args], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  });
  if (child.status !== 0) throw new Error(`${root}: hcas ${args.join(' ')} exited ${child.status}:\n${child.stderr.slice(-2000)}`);
  const [wall, user, system, kb] = child.stderr.trim().split('\n').at(-1)!.split(' ').map(Number);
  return { wall, cpu: user + system, peakMb: kb / 1024 };
}

function buildOnce(root: string): Round {
  const dir = mkdtempSync(path.join(tmpdir(), 'hcas-build-paired-'));
  try {
    const manifest = path.join(root, values.sample ? 'raw/manifests/sample.json' : values.manifest!);
    const rootArgs = values.sample ? ['--root', path.join(dir, 'raw')] : [];
    const sample = values.sample ? hcas(root, ['sample', '--out', path.join(dir, 'raw'), '--quiet']) : null;
    const build = hcas(root, ['build', '--manifest', manifest, ...rootArgs, '--out', path.join(dir, 'hcas.sqlite'), '--quiet']);
    return sample ? { wall: sample.wall + build.wall, cpu: sample.cpu + build.cpu, peakMb: Math.max(sample.peakMb, build.peakMb) } : build;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const measured: Record<'before' | 'after', Round[]> = { before: [], after: [] };
for (let round = 0; round < rounds; round++) {
  // Alternate which goes first, so neither always meets the warmer (or the busier) machine.
  const order = round % 2 === 0 ? (['before', 'after'] as const) : (['after', 'before'] as const);
  for (const side of order) {
    const run = buildOnce(checkouts[side]);
    measured[side].push(run);
    console.log(
      `round ${round + 1} ${side.padEnd(6)} wall ${run.wall.toFixed(1)} s, CPU ${run.cpu.toFixed(1)} s, peak ${Math.round(run.peakMb)} MB`,
    );
  }
}
const pick = (side: 'before' | 'after', key: keyof Round) => median(measured[side].map((r) => r[key]));
console.log(
  `\n${values.sample ? 'hcas sample + hcas build (raw/manifests/sample.json)' : `hcas build --manifest ${values.manifest}`}, ${rounds} alternating rounds, medians:`,
);
console.log('measure     before     after   after/before');
for (const [key, unit] of [
  ['wall', 's'],
  ['cpu', 's'],
  ['peakMb', 'MB'],
] as const) {
  const [b, a] = [pick('before', key), pick('after', key)];
  console.log(`${key.padEnd(8)} ${b.toFixed(1).padStart(9)} ${a.toFixed(1).padStart(9)}   ${(a / b).toFixed(3)}x  (${unit})`);
}

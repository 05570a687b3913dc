/**
 * Stand-alone runner of the sample generator, for timing and manual runs:
 *   npx tsx pipeline/sample/cli-run.ts --out DIR --providers N --facilities N --seed S
 * Prints progress, the files written, wall time and peak RSS. (`hcas sample` is the real command.)
 */
import { parseArgs } from 'node:util';
import { writeSample } from './index.ts';

const { values } = parseArgs({
  options: {
    out: { type: 'string', default: 'raw/synthetic' },
    providers: { type: 'string' },
    facilities: { type: 'string' },
    seed: { type: 'string' },
  },
});
const num = (v: string | undefined) => (v === undefined ? undefined : Number(v));
const started = performance.now();
const result = await writeSample({
  outDir: values.out!,
  providers: num(values.providers),
  facilities: num(values.facilities),
  seed: num(values.seed),
  log: (line) => console.log(line),
});
for (const [name, f] of Object.entries(result.files)) console.log(`${name.padEnd(16)} ${String(f.rows).padStart(10)}  ${f.path}`);
const shown = result.brokenRows.slice(0, 3).map((b) => `${b.npi} (${b.reason}, row ${b.row})`);
console.log(`broken NPPES rows: ${result.brokenRows.length}, e.g. ${shown.join('; ')}`);
console.log(
  `wall ${((performance.now() - started) / 1000).toFixed(1)} s, peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`,
);

/**
 * Title case benchmark: `displayName` over 1,000,000 all-caps names as an NPPES row gives them (first name,
 * last name, street address, city: four a row), against `toLowerCase()` over the same strings, the least any
 * title-casing must do. Rounds alternate, medians are compared (the machine is noisy). The answers are
 * checked before timing. Stand-alone: node bin/run-ts.js bench/title-case.ts [--names N] [--rounds N]
 */
import { displayName } from '../pipeline/layouts/values.ts';
import { FEMALE_NAMES, LAST_NAMES, MALE_NAMES, STREET_TYPES, STREETS } from '../producers/sample/names.ts';
import { Rng } from '../producers/sample/prng.ts';
import { fmt, median, numberOption, printTable, runDirectly } from './lib.ts';

/** Cities as the federal files print them, the acronyms and Mc names of issue 28 among them. */
const CITIES = [
  'NEW YORK',
  'MCKINNEY',
  'JBER',
  'WRIGHT PATTERSON AFB',
  'SALT LAKE CITY',
  'SAINT LOUIS',
  'LAKE IN THE HILLS',
  'COEUR D ALENE',
  "O'FALLON",
  'FORT WORTH',
  'WINSTON SALEM',
  'ISLE OF PALMS',
];

/** `count` names, four a provider row, from the sample's word lists (seeded: the same names every run). */
export function nppesLikeNames(count: number): string[] {
  const rng = new Rng(28, 'title-case');
  const names: string[] = [];
  while (names.length < count) {
    names.push(rng.pick(rng.next() < 0.5 ? MALE_NAMES : FEMALE_NAMES));
    names.push(rng.pick(LAST_NAMES));
    names.push(`${1 + Math.floor(rng.next() * 9000)} ${rng.pick(STREETS)} ${rng.pick(STREET_TYPES)}`);
    names.push(rng.pick(CITIES));
  }
  return names.slice(0, count);
}

function timeMs(names: readonly string[], transform: (text: string) => string): number {
  let length = 0;
  const started = process.hrtime.bigint();
  for (const name of names) length += transform(name).length;
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (length === 0) throw new Error('nothing was transformed');
  return ms;
}

/** Runs the benchmark and prints its table. */
export function benchTitleCase(options: { names?: number; rounds?: number } = {}): void {
  const count = options.names ?? 1_000_000;
  const rounds = options.rounds ?? 7;
  for (const [text, expected] of [
    ['MCKINNEY', 'McKinney'],
    ['WRIGHT PATTERSON AFB', 'Wright Patterson AFB'],
    ['3500 CENTRAL AVE', '3500 Central Ave'],
  ]) {
    if (displayName(text) !== expected) throw new Error(`displayName(${text}) is ${displayName(text)}, expected ${expected}`);
  }
  const names = nppesLikeNames(count);
  const lower = (text: string) => text.toLowerCase();
  const times = { lower: [] as number[], displayName: [] as number[] };
  for (let round = 0; round < rounds; round++) {
    times.lower.push(timeMs(names, lower));
    times.displayName.push(timeMs(names, displayName));
  }
  const base = median(times.lower);
  printTable(
    ['transform', `ms for ${fmt(count, 0)} names`, 'ns a name', 'ratio'],
    Object.entries(times).map(([name, values]) => {
      const ms = median(values);
      return [name === 'lower' ? 'toLowerCase (baseline)' : name, fmt(ms, 1), fmt((ms * 1e6) / count, 0), fmt(ms / base, 2)];
    }),
  );
}

if (runDirectly(import.meta.filename)) benchTitleCase({ names: numberOption('--names'), rounds: numberOption('--rounds') });

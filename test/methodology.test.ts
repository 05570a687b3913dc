import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import * as config from '../pipeline/config/scoring.ts';

const FILE = path.resolve(import.meta.dirname, '../docs/METHODOLOGY.md');
const START = '<!-- constants:start -->';
const END = '<!-- constants:end -->';

/** One row per exported constant of pipeline/config/scoring.ts, its value as JSON. */
function constantsTable(): string {
  const rows = Object.entries(config)
    .filter(([, value]) => typeof value !== 'function')
    .map(([name, value]) => `| \`${name}\` | \`${JSON.stringify(value).replace(/\|/g, '\\|')}\` |`);
  return ['| constant | value |', '|---|---|', ...rows].join('\n');
}

describe('docs/METHODOLOGY.md', () => {
  const doc = readFileSync(FILE, 'utf8');

  it('lists every constant of pipeline/config/scoring.ts with its value', () => {
    const expected = `${START}\n${constantsTable()}\n${END}`;
    const actual = doc.slice(doc.indexOf(START), doc.indexOf(END) + END.length);
    if (process.env.UPDATE_DOCS && actual !== expected) writeFileSync(FILE, doc.replace(actual, expected));
    else expect(actual, 'run UPDATE_DOCS=1 npx vitest run test/methodology.test.ts').toBe(expected);
  });

  it('names every constant in its text, so each number is explained where it is used', () => {
    const text = doc.slice(0, doc.indexOf(START));
    const unexplained = Object.keys(config).filter(
      (name) => typeof (config as Record<string, unknown>)[name] !== 'function' && !text.includes(`\`${name}`),
    );
    expect(unexplained).toEqual([]);
  });

  it('states the numbers the code uses', () => {
    const has = (text: string) => expect(doc, text).toContain(text);
    has(`fewer than ${config.SMALL_POPULATION} residents`);
    has(`Straight-line miles × ${config.MINUTES_PER_STRAIGHT_MILE.toFixed(1)}`);
    has(`${config.CARE_MINUTES.fullAt} min → 100, ${config.CARE_MINUTES.zeroAt} min → 0`);
    has(`${config.SPECIALIST_MINUTES.fullAt} min → 100, ${config.SPECIALIST_MINUTES.zeroAt} min → 0`);
    has(`${config.BEDS_BENCHMARK.zeroAt} → 0, ${config.BEDS_BENCHMARK.fullAt} → 100`);
    has(
      `(${config.COMPOSITE_WEIGHTS.provider} provider + ${config.COMPOSITE_WEIGHTS.hospital} hospital + ${config.COMPOSITE_WEIGHTS.travel} travel)`,
    );
    has(`${config.PEOPLE_FLOOR} + ${+(1 - config.PEOPLE_FLOOR).toFixed(2)} × people / 100`);
    has(`travel = ${config.TRAVEL_WEIGHTS.care} × care + ${config.TRAVEL_WEIGHTS.mobility} × mobility`);
    has(`Transit use by ${config.MOBILITY.transitFullAt}% of commuters`);
    has(`at ${config.MOBILITY.gapZeroAt}% of households`);
    has(`within ${config.FACILITY_MATCH_MILES} miles`);
    has(`licensed beds × ${config.STAFFED_PER_LICENSED_BED}`);
    has(`at least ${config.MAJOR_HOSPITAL.minBeds} staffed beds`);
    has(`within ${config.RATING_RADIUS_MILES} miles`);
    for (const [part, weight] of Object.entries(config.HOSPITAL_WEIGHTS))
      expect(doc, part).toMatch(new RegExp(`\\| ${part} \\|.*\\| ${weight.toFixed(2)} \\|`));
    for (const { measure, noNeedAt, fullNeedAt, weight } of config.NEED_MEASURES)
      has(`| ${measure} | ${noNeedAt}% | ${fullNeedAt}% | ${weight.toFixed(2)} |`);
    for (const [category, density] of Object.entries(config.EXPECTED_DENSITY))
      expect(doc, category).toMatch(new RegExp(`${String(density).replace('.', '\\.')}\\b`));
    for (const type of config.SCORE_TYPES) {
      const weights = Object.entries(type.providers)
        .map(([c, w]) => `${c} ${w}`)
        .join(', ');
      has(`| ${type.id} | ${type.name} | ${weights} |`);
    }
  });
});

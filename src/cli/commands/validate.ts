import type { CommandIo } from '../../../core/command.ts';
import type { Command } from 'commander';
import type { ValidationReport } from '../../../core/validation.ts';
import { DB_HELP, getJson, openApi } from '../api-client.ts';
import { CliError, EXIT } from '../errors.ts';
import { json, table } from '../format.ts';
import { ALL_ROUTES } from '../../api/index.ts';

/** The report the build stores in `meta.validation`. */
export type Report = ValidationReport;

export interface Meta {
  build_id: string;
  built_at: string;
  dataset: { name?: string } | null;
  validation: Report | null;
  provider_coverage: { status: string; note: string } | null;
}

/** Exit status when a check fails: the data does not describe the world (README, exit codes). */
const FAILED = EXIT.data;

const NCHS = ['', 'large central metro', 'large fringe metro', 'medium metro', 'small metro', 'micropolitan', 'noncore'];
const percent = (share: number) => `${(share * 100).toFixed(2)}%`;
const thousands = (n: number) => n.toLocaleString('en-US');

/** `hcas validate`: the build measured against independent public measures (docs/VALIDATION.md). */
export function registerValidate(program: Command, io: CommandIo): void {
  program
    .command('validate')
    .description('Show how a build measures up against independent public measures; exit 3 when a check fails')
    .option('--db <file>', DB_HELP)
    .option('--json', 'print the report as JSON')
    .option('--markdown', 'print the report as Markdown (docs/VALIDATION.md is this output for the real-data build)')
    .addHelpText(
      'after',
      '\nExamples:\n  hcas validate\n  hcas validate --markdown > validation.md   # docs/VALIDATION.md is this, for --db dist-api/real.sqlite',
    )
    .action(async (options: { db?: string; json?: boolean; markdown?: boolean }) => {
      if (options.json && options.markdown) throw new CliError('choose one of --json and --markdown');
      const api = openApi(options.db, io.env, ALL_ROUTES);
      let meta: Meta;
      try {
        meta = await getJson<Meta>(api, 'meta/', {});
      } finally {
        api.retire();
      }
      const report = meta.validation;
      if (!report)
        throw new CliError(
          `${options.db ?? 'the database'} holds no validation report: it was built before reports existed; rebuild it with \`hcas build\``,
          FAILED,
        );
      io.stdout.write(options.json ? json(report) : options.markdown ? markdown(meta, report) : text(meta, report));
      const failed = report.checks.filter((c) => !c.pass);
      if (failed.length)
        throw new CliError(`${failed.length} of ${report.checks.length} checks failed: ${failed.map((c) => c.name).join('; ')}`, FAILED);
    });
}

/** The report as aligned tables for a terminal. */
function text(meta: Meta, report: Report): string {
  const checks = table(
    report.checks.map((c) => ({ result: c.pass ? 'ok' : 'FAIL', check: c.name, value: c.value, target: c.target })),
    [{ key: 'result' }, { key: 'check' }, { key: 'value' }, { key: 'target' }],
  );
  const notes = report.checks
    .filter((c) => c.note)
    .map((c) => `  ${c.name}: ${c.note}\n`)
    .join('');
  const bands = table(
    report.bands.map((b) => ({ band: b.label, zips: b.zips, residents: b.residents, share: percent(b.share) })),
    [{ key: 'band' }, { key: 'zips', thousands: true }, { key: 'residents', thousands: true }, { key: 'share' }],
  );
  const classes = table(
    report.urbanRural.map((c) => ({
      nchs: `${c.code} ${NCHS[c.code]}`,
      zips: c.zips,
      healthscore: c.healthscore,
      people: c.people,
      hospital: c.hospital,
      travel: c.travel,
    })),
    [
      { key: 'nchs', heading: 'NCHS class' },
      { key: 'zips', thousands: true },
      { key: 'healthscore' },
      { key: 'people' },
      { key: 'hospital' },
      { key: 'travel' },
    ],
  );
  const correlations = table(
    Object.entries(report.correlations).map(([name, c]) => ({ measure: name.replace(/_/g, ' '), spearman: c.rho, zips: c.n })),
    [{ key: 'measure' }, { key: 'spearman' }, { key: 'zips', thousands: true }],
  );
  return (
    `validation of build ${meta.build_id} (${meta.dataset?.name ?? 'unnamed dataset'})\n\n${checks}${notes ? `\nnotes:\n${notes}` : ''}` +
    `\nresidents per band (ranked ZIPs):\n${bands}\npopulation-weighted means by NCHS urban-rural class:\n${classes}\nrank correlations:\n${correlations}` +
    residentsText(report) +
    cliniciansText(report) +
    (meta.provider_coverage ? `\nprovider component: ${meta.provider_coverage.status}. ${meta.provider_coverage.note}\n` : '')
  );
}

/** The report as a Markdown page (docs/VALIDATION.md). */
export function markdown(meta: Meta, report: Report): string {
  return [
    ...checksMarkdown(meta, report),
    ...measuresMarkdown(report),
    ...residentsMarkdown(report, rows),
    ...cliniciansMarkdown(report, rows),
    ...(meta.provider_coverage
      ? ['## Provider component', '', `${meta.provider_coverage.status}: ${meta.provider_coverage.note}`, '']
      : []),
    ...ABOUT_THE_MEASURES,
  ].join('\n');
}

/** A Markdown table. */
function rows(head: string[], body: Array<Array<string | number | null>>): string {
  return [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...body.map((r) => `| ${r.map((v) => (v === null ? '' : String(v))).join(' | ')} |`),
  ].join('\n');
}

/** The page's head and the checks, each with its note. */
function checksMarkdown(meta: Meta, report: Report): string[] {
  const passed = report.checks.filter((c) => c.pass).length;
  return [
    `# Validation: ${meta.dataset?.name ?? 'a build'}`,
    '',
    `Build \`${meta.build_id}\` of ${meta.built_at.slice(0, 10)}, as \`hcas validate --markdown\` prints it: the scores measured against`,
    'independent public measures. Only ZIPs of 100 or more residents count (small populations are flagged, never ranked).',
    `${passed} of ${report.checks.length} checks pass.`,
    '',
    '## Checks',
    '',
    rows(
      ['result', 'check', 'value', 'target'],
      report.checks.map((c) => [c.pass ? 'ok' : '**FAIL**', c.name, c.value, c.target]),
    ),
    '',
    ...report.checks.filter((c) => c.note).map((c) => `- ${c.name}: ${c.note}`),
    '',
  ];
}

/** The measures the checks read: bands, classes, correlations, academic centres and frontier ZIPs. */
function measuresMarkdown(report: Report): string[] {
  return [
    '## Residents per band',
    '',
    rows(
      ['band', 'ZIPs', 'residents', 'share'],
      report.bands.map((b) => [b.label, thousands(b.zips), thousands(b.residents), percent(b.share)]),
    ),
    '',
    '## By NCHS urban-rural class of the county (population-weighted means)',
    '',
    rows(
      ['class', 'ZIPs', 'residents', 'healthscore', 'people', 'hospital', 'travel'],
      report.urbanRural.map((c) => [
        `${c.code} ${NCHS[c.code]}`,
        thousands(c.zips),
        thousands(c.residents),
        c.healthscore,
        c.people,
        c.hospital,
        c.travel,
      ]),
    ),
    '',
    '## By RUCA code of the ZIP (1 metropolitan core ... 10 rural; population-weighted)',
    '',
    rows(
      ['RUCA', 'ZIPs', 'residents', 'healthscore'],
      report.ruca.map((c) => [c.code, thousands(c.zips), thousands(c.residents), c.healthscore]),
    ),
    '',
    '## Rank correlations (Spearman)',
    '',
    rows(
      ['pair', 'rho', 'ZIPs'],
      Object.entries(report.correlations).map(([name, c]) => [name.replace(/_/g, ' '), c.rho, thousands(c.n)]),
    ),
    '',
    '## Academic medical centre ZIPs',
    '',
    rows(
      ['ZIP', 'where', 'healthscore', 'band', 'people'],
      report.academicMedicalCentres.map((a) => [a.zip, a.name, a.healthscore, a.label, a.people]),
    ),
    '',
    `## Frontier ZIPs: ${report.frontier.inBottomTwo} of ${report.frontier.zips} in the bottom two bands`,
    '',
    report.frontier.exceptions.length
      ? rows(
          ['ZIP', 'place', 'healthscore', 'reference minutes'],
          report.frontier.exceptions.map((e) => [e.zip, `${e.city}, ${e.state}`, e.healthscore, Math.round(e.referenceMinutes)]),
        )
      : 'No exception.',
    '',
  ];
}

/** Where each independent measure comes from and what it should show. */
const ABOUT_THE_MEASURES = [
  '## About the measures',
  '',
  '- **Reference drive minutes**: the drive time to the nearest hospital from the OEPS access tables (Access03, 2010 ZCTAs,',
  '  about 2020; 0 where a hospital lies in the ZCTA). They come from the same research group (HEROP) as the 2025 drive-time',
  '  table the scores use, computed years apart over another hospital list, so the correlation is independent of our',
  "  straight-line fallback but not of HEROP's routing; the check shows the hospital component follows the roads.",
  '- **NCHS urban-rural classes** (2023, by county) order counties from large central metro (1) to noncore (6): access',
  '  should fall step by step. **USDA RUCA codes** (2010, by ZIP) group ZIPs by commuting: 1-3 metropolitan, 4-6',
  '  micropolitan, 7-9 small town, 10 rural (within a group the codes are not an order): access should fall by group.',
  '- **CDC/ATSDR SVI** (2022, by ZCTA) measures social vulnerability; the people component should fall as it rises, the',
  '  whole score less so (access to care is best in cities, where vulnerability is often high).',
  '- **Academic medical centre ZIPs**: the ZIPs of the largest academic centres of the largest cities. Realised access',
  "  there is lowered by the residents' social need, so the check allows a ZIP outside the top two bands only where its",
  '  people component is below 60, and lists each such ZIP.',
  '- **Frontier ZIPs**: an hour and a half or more from a hospital by the reference table.',
  '- **Tract centres of population** (Census 2020, by tract): where the census counted people, independent of the USPS',
  "  addresses HUD's residents' points come from. **Emergency hospitals** are read from the CMS file's own rows (acute",
  "  care and critical access hospitals whose Emergency Services is Yes), not from the build's roster.",
  "- **Drive-time calibration**: the straight-line estimate (miles times the minutes per mile of the ZIP's density) against",
  "  the road table's minutes, over the ZIPs whose table row describes the residents' trip (docs/METHODOLOGY.md).",
  "- **States**: the state holding most of each ZIP's residential addresses, recomputed from the HUD crosswalk by",
  '  states (the build picks state, then county), against the state the build publishes.',
  '',
];

/** The residents' points and the drive-time calibration for a terminal (absent from older reports). */
function residentsText(report: Report): string {
  const points = report.residentsPoints;
  const calibration = report.driveTimeCalibration;
  let out = '';
  if (points) {
    const o = points.offsetMiles;
    const t = points.tractCentres;
    out +=
      `\nresidents' points: ${Object.entries(points.sources)
        .map(([source, n]) => `${thousands(n)} ${source}`)
        .join(', ')}; moved from the internal point by median ${o.p50} mi, 90th percentile ${o.p90}, largest ${o.max}\n` +
      (t
        ? `  to the nearest tract centre of population (${thousands(t.zips)} ZIPs of ${thousands(t.minPopulation)}+): median ${t.residentsMiles.p50} mi, 90th percentile ${t.residentsMiles.p90} (Gazetteer points ${t.gazetteerMiles.p50}, ${t.gazetteerMiles.p90})\n`
        : '');
  }
  if (calibration) {
    out += `\ndrive-time estimate against the road table (${thousands(calibration.zips)} ZIPs where it describes the residents):\n${table(
      [
        ...calibration.byDensity.map((r) => ({ group: `${thousands(r.minDensity)}+ residents/sq mi`, used: r.minutesPerMile, ...r })),
        ...calibration.byRegion.map((r) => ({ group: r.region, used: '', ...r })),
      ].map((r) => ({
        group: r.group,
        used: r.used,
        table: r.tableMinutesPerMile,
        zips: thousands(r.zips),
        error: `${r.medianAbsolutePct}%`,
        bias: `${r.medianBiasPct}%`,
      })),
      [
        { key: 'group' },
        { key: 'used', heading: 'min/mile used' },
        { key: 'table', heading: "table's min/mile" },
        { key: 'zips' },
        { key: 'error', heading: 'median error' },
        { key: 'bias', heading: 'median bias' },
      ],
    )}`;
  }
  return out;
}

type Rows = (head: string[], body: Array<Array<string | number | null>>) => string;

/** The residents' points and the drive-time calibration as Markdown sections (absent from older reports). */
function residentsMarkdown(report: Report, rows: Rows): string[] {
  const points = report.residentsPoints;
  const calibration = report.driveTimeCalibration;
  const lines: string[] = [];
  if (points) {
    const offset = points.offsetMiles;
    lines.push(
      "## Residents' points",
      '',
      `${Object.entries(points.sources)
        .map(
          ([source, n]) =>
            `${thousands(n)} ZIPs placed by ${source === 'hud_residential' ? "HUD's residents' point" : "the Gazetteer's internal point"}`,
        )
        .join(', ')}. Miles from the internal point to the residents' point: median ${offset.p50}, 75th percentile ${offset.p75}, ` +
        `90th ${offset.p90}, 99th ${offset.p99}, largest ${offset.max}.`,
      '',
    );
    const tracts = points.tractCentres;
    if (tracts) {
      lines.push(
        `Miles to the nearest Census tract centre of population, over ${thousands(tracts.zips)} ZIPs of ${thousands(tracts.minPopulation)}+ residents:`,
        '',
        rows(
          ['point', 'median', '90th percentile'],
          [
            ["residents' point", tracts.residentsMiles.p50, tracts.residentsMiles.p90],
            ['Gazetteer internal point', tracts.gazetteerMiles.p50, tracts.gazetteerMiles.p90],
          ],
        ),
        '',
        `Residents' points over ${tracts.emptyLandMiles} miles from any tract centre (${tracts.emptyLand.length}; the 15 with most residents):`,
        '',
        rows(
          ['ZIP', 'place', 'residents', "residents' point (mi)", 'Gazetteer point (mi)'],
          tracts.emptyLand
            .slice(0, 15)
            .map((z) => [z.zip, `${z.city}, ${z.state}`, thousands(z.population), z.residentsMiles, z.gazetteerMiles]),
        ),
        '',
      );
    }
  }
  if (calibration) {
    const columns = ['ZIPs', "table's minutes per mile", 'median error (min)', 'median error', 'median bias'];
    const values = (r: NonNullable<Report['driveTimeCalibration']>['all']) => [
      thousands(r.zips),
      r.tableMinutesPerMile,
      r.medianAbsoluteMinutes,
      `${r.medianAbsolutePct}%`,
      `${r.medianBiasPct}%`,
    ];
    lines.push(
      `## Drive times: the straight-line estimate against the road table (${thousands(calibration.zips)} ZIPs)`,
      '',
      rows(
        ['residents per sq mi', 'minutes per mile used', ...columns],
        calibration.byDensity.map((r) => [`${thousands(r.minDensity)}+`, r.minutesPerMile, ...values(r)]),
      ),
      '',
      rows(
        ['Census region', ...columns],
        calibration.byRegion.map((r) => [r.region, ...values(r)]),
      ),
      '',
    );
  }
  return lines;
}

/** The clinician supply against the count files, as rows: per category, the known counties, per NCHS class. */
function clinicianRows(clinicians: NonNullable<Report['clinicians']>) {
  return {
    supply: clinicians.supply.map((s) => ({
      category: s.category.replace(/_/g, ' '),
      build: s.buildPer100k,
      files: s.filesPer100k,
      counties: `${thousands(s.withinTolerance)} of ${thousands(s.counties)}`,
      median: `${s.medianDifferencePct}%`,
      p90: `${s.p90DifferencePct}%`,
    })),
    known: clinicians.known.map((k) => ({
      county: k.name,
      expect: k.expect,
      provider: k.provider,
      percentile: k.percentile,
      why: k.why,
    })),
    classes: clinicians.urbanRural.map((c) => ({ class: `${c.code} ${NCHS[c.code]}`, zips: thousands(c.zips), provider: c.provider })),
  };
}

function cliniciansText(report: Report): string {
  const clinicians = report.clinicians;
  if (!clinicians) return '';
  const { supply, known, classes } = clinicianRows(clinicians);
  return (
    `
clinicians per 100,000 residents, the build against its count files (counties of 10,000+ residents):
${table(supply, [
  { key: 'category' },
  { key: 'build' },
  { key: 'files' },
  { key: 'counties', heading: 'counties within tolerance' },
  { key: 'median', heading: 'median difference' },
  { key: 'p90', heading: '90th percentile' },
])}` +
    (clinicians.ranking
      ? `the provider component against the published ratios: Spearman ${clinicians.ranking.rho} over ${thousands(clinicians.ranking.counties)} counties
`
      : '') +
    `known counties (provider component, county mean; percentile among counties):
${table(known, [
  { key: 'county' },
  { key: 'expect' },
  { key: 'provider' },
  { key: 'percentile' },
  { key: 'why' },
])}provider component by NCHS urban-rural class:
${table(classes, [{ key: 'class' }, { key: 'zips' }, { key: 'provider' }])}`
  );
}

function cliniciansMarkdown(report: Report, rows: Rows): string[] {
  const clinicians = report.clinicians;
  if (!clinicians) return [];
  const { supply, known, classes } = clinicianRows(clinicians);
  return [
    '## Clinicians against the count files',
    '',
    'Clinicians per 100,000 residents in the build beside its count files, nationally and county by county (counties of 10,000+',
    'residents; a ZIP counts in the county holding most of its residents, and holds clinicians of each county it spans):',
    '',
    rows(
      ['category', 'build', 'files', 'counties within tolerance', 'median difference', '90th percentile'],
      supply.map((r) => [r.category, r.build, r.files, r.counties, r.median, r.p90]),
    ),
    '',
    clinicians.ranking
      ? `The counties' provider component against their published ratios: Spearman ${clinicians.ranking.rho} over ${thousands(clinicians.ranking.counties)} counties.`
      : 'No county has every counted category: the provider component is not ranked against published ratios.',
    '',
    rows(
      ['county', 'expected', 'provider component', 'percentile', 'why'],
      known.map((k) => [k.county, k.expect, k.provider, k.percentile, k.why]),
    ),
    '',
    rows(
      ['NCHS class', 'ZIPs', 'provider component'],
      classes.map((c) => [c.class, c.zips, c.provider]),
    ),
    '',
  ];
}

import type { DiffReport } from '../../diff/index.ts';
import type { FactChange, ShiftRow, ZipChange } from '../../diff/report.ts';
import type { Block } from './render.ts';
import { buildsBlocks, count, plain, share, signed, value } from './builds-blocks.ts';
import { COMPONENTS, perComponent } from '../../../core/components.ts';

/** The report as blocks, in its three parts and the verdict; the terminal and `--markdown` print the same blocks. */
export function diffDocument(report: DiffReport): Block[] {
  return [
    { kind: 'heading', level: 1, text: `hcas diff: build ${report.old.build_id} (OLD) → ${report.new.build_id} (NEW)` },
    ...buildsBlocks(report),
    ...scoresBlocks(report),
    ...whyBlocks(report),
    { kind: 'heading', level: 2, text: 'Status' },
    report.status.agree
      ? {
          kind: 'text',
          text: `The builds agree within the thresholds (--max-shift ${report.status.thresholds.max_shift}, --max-band-moves ${share(report.status.thresholds.max_band_moves)}): exit status 0.`,
        }
      : { kind: 'list', items: report.status.exceeded.map((text) => ({ text })) },
  ];
}

function scoresBlocks(report: DiffReport): Block[] {
  const s = report.scores;
  const blocks: Block[] = [
    { kind: 'heading', level: 2, text: `2. Scores (${s.score_type.slug})` },
    {
      kind: 'text',
      text:
        `${count(s.zips.compared)} ZIPs compared: ${count(s.zips.changed)} changed, ${count(s.zips.moved)} of them in their score, ` +
        `${count(s.zips.unchanged)} unchanged; ${count(s.zips.only_old)} only in OLD, ${count(s.zips.only_new)} only in NEW. ` +
        `Residents whose band changed: ${count(s.residents.band_moved)} of ${count(s.residents.compared)} (${share(s.residents.band_moved_share)}).`,
    },
  ];
  if (s.band_moves.length) {
    const labels = [...s.bands, ...s.band_moves.flatMap((m) => [m.from, m.to])].filter((l, i, all) => l && all.indexOf(l) === i);
    const from = labels.filter((l) => s.band_moves.some((m) => m.from === l));
    const to = labels.filter((l) => s.band_moves.some((m) => m.to === l));
    blocks.push(
      { kind: 'text', text: 'Band moves, residents (ZIPs), old band down, new band across:' },
      {
        kind: 'table',
        columns: [{ key: 'band', heading: 'OLD \\ NEW' }, ...to.map((l) => ({ key: l, right: true }))],
        rows: from.map((f) => ({
          band: f,
          ...Object.fromEntries(
            to.map((t) => {
              const m = s.band_moves.find((x) => x.from === f && x.to === t);
              return [t, m ? `${count(m.residents)} (${count(m.zips)})` : ''];
            }),
          ),
        })),
      },
    );
  }
  const moving = s.states.filter((row) => row.moved > 0);
  blocks.push(
    {
      kind: 'text',
      text: `Shift, new minus old: means over the ZIPs compared, the median over those that moved${moving.length < s.states.length ? `; states where a ZIP moved (${moving.length} of ${s.states.length})` : ''}:`,
    },
    { kind: 'table', columns: SHIFT_COLUMNS, rows: [shiftCells('all', s.national), ...moving.map((row) => shiftCells(row.state!, row))] },
    { kind: 'text', text: 'Every score type (the exit status judges them all):' },
    {
      kind: 'table',
      columns: [
        { key: 'type' },
        { key: 'changed', right: true },
        { key: 'moved', right: true },
        { key: 'mean', right: true },
        { key: 'largest', right: true },
        { key: 'component', heading: 'largest component', right: true },
        { key: 'band', heading: 'band moves (ZIPs)', right: true },
        { key: 'share', heading: 'residents', right: true },
      ],
      rows: s.score_types.map((t) => ({
        type: t.slug,
        changed: count(t.changed),
        moved: count(t.moved),
        mean: signed(t.mean),
        largest: signed(t.largest),
        component: plain(t.largest_component) + (t.component_in_one_build ? ` (+${count(t.component_in_one_build)} in one build)` : ''),
        band: count(t.band_moved_zips),
        share: share(t.band_moved_share),
      })),
    },
  );
  return blocks;
}

const SHIFT_COLUMNS = [
  { key: 'area' },
  { key: 'zips', heading: 'ZIPs', right: true },
  { key: 'moved', right: true },
  { key: 'mean', right: true },
  { key: 'median', heading: 'median moved', right: true },
  { key: 'weighted', heading: 'residents mean', right: true },
  { key: 'largest', right: true },
  ...COMPONENTS.map((key) => ({ key, right: true })),
  { key: 'average', heading: 'state average', right: true },
];

function shiftCells(area: string, row: ShiftRow): Record<string, unknown> {
  const component = (x: number | null) => (x === null ? 'n/a' : signed(x));
  return {
    area,
    zips: count(row.zips),
    moved: count(row.moved),
    mean: signed(row.mean),
    median: signed(row.median_moved),
    weighted: signed(row.residents_mean),
    largest: signed(row.largest),
    ...perComponent((c) => component(row.components[c])),
    average: row.average.old === null && row.average.new === null ? '' : `${value(row.average.old)} → ${value(row.average.new)}`,
  };
}

function whyBlocks(report: DiffReport): Block[] {
  const w = report.why;
  const blocks: Block[] = [{ kind: 'heading', level: 2, text: '3. Why' }];
  if (!w.causes.length) blocks.push({ kind: 'text', text: 'No ZIP changed: nothing to explain.' });
  else
    blocks.push(
      { kind: 'text', text: 'Causes, each ZIP counted under the cause that explains most of its change (its first):' },
      {
        kind: 'table',
        columns: [
          { key: 'first', heading: 'first for ZIPs', right: true },
          { key: 'residents', right: true },
          { key: 'zips', heading: 'cause of ZIPs', right: true },
          { key: 'cause' },
        ],
        rows: w.causes.map((c) => ({
          first: count(c.first_for_zips),
          residents: count(c.first_for_residents),
          zips: count(c.zips),
          cause:
            c.inputs > 1 ? `${c.cause}: ${count(c.inputs)} inputs, e.g. ${c.examples.slice(0, 3).join('; ')}` : (c.examples[0] ?? c.cause),
        })),
      },
    );
  if (w.zips.length)
    blocks.push(
      {
        kind: 'heading',
        level: 3,
        text: `The ${w.zips.length} ZIPs that moved most (by ${w.ranked_by}, ${count(w.min_residents)}+ residents)`,
      },
      { kind: 'list', items: w.zips.map(zipItem) },
    );
  blocks.push(...rosterBlocks(report), ...providerBlocks(report));
  return blocks;
}

function zipItem(z: ZipChange): { text: string; sub: string[] } {
  const score = (side: ZipChange['old']) => (side ? `${value(side.healthscore)} ${side.label}` : 'none');
  const parts = COMPONENTS.map((c) => {
    const [a, b] = [z.old?.[c] ?? null, z.new?.[c] ?? null];
    return a === b ? null : `${c} ${value(a)} → ${value(b)}`;
  });
  const [first, ...rest] = z.causes;
  return {
    text: `${z.zip} ${z.city}, ${z.state} (${count(z.residents)} residents): ${score(z.old)} → ${score(z.new)} (${signed(z.shift)})`,
    sub: [
      `components: ${parts.filter(Boolean).join(', ') || 'unchanged'}`,
      ...(first ? [`why: ${first.text}`] : []),
      ...(rest.length
        ? [
            `also: ${rest
              .slice(0, 3)
              .map((c) => c.text)
              .join('; ')}${rest.length > 3 ? `; and ${rest.length - 3} more (--json)` : ''}`,
          ]
        : []),
      ...(z.facts.length ? [`facts: ${z.facts.map(fact).join('; ')}`] : []),
    ],
  };
}

const fact = (f: FactChange) => `${f.fact.replaceAll('_', ' ')} ${value(f.old)} → ${value(f.new)}`;

function rosterBlocks(report: DiffReport): Block[] {
  const r = report.why.facilities;
  if (!r) return [{ kind: 'text', text: 'Facility roster: not compared (a build has no facilities table).' }];
  const fields = Object.entries(r.by_field).map(([f, n]) => `${f} ${count(n)}`);
  const blocks: Block[] = [
    { kind: 'heading', level: 3, text: 'Facility roster' },
    {
      kind: 'text',
      text:
        `${count(r.added)} added, ${count(r.removed)} removed, ${count(r.changed)} changed${fields.length ? ` (by field: ${fields.join(', ')})` : ''}; ` +
        `${count(r.provider_count_only)} changed only in their affiliated clinician count` +
        (r.moved_with_zip_point
          ? `; ${count(r.moved_with_zip_point)} moved only with their ZIP's point (placed there, no coordinates of their own).`
          : '.'),
    },
  ];
  if (r.list.length)
    blocks.push({
      kind: 'table',
      columns: [{ key: 'change' }, { key: 'facility' }, { key: 'type' }, { key: 'place' }, { key: 'scored' }, { key: 'what' }],
      rows: r.list.map((f) => ({
        change: f.with_zip_point ? 'moved with its ZIP' : f.change,
        facility: f.name,
        type: f.type,
        place: f.place,
        scored: f.scored ? 'yes' : 'no',
        what: f.fields.map(fact).join('; '),
      })),
    });
  if (r.listed_of > r.list.length)
    blocks.push({
      kind: 'text',
      text: `(${count(r.list.length)} of ${count(r.listed_of)} changes listed; --facilities N lists more.)`,
    });
  return blocks;
}

function providerBlocks(report: DiffReport): Block[] {
  const p = report.why.providers;
  if (!p || (!p.total.old && !p.total.new && !p.by_state.length && !p.by_category.length)) return [];
  const blocks: Block[] = [
    { kind: 'heading', level: 3, text: 'Providers' },
    { kind: 'text', text: `Clinicians in the directory: ${value(p.total.old)} → ${value(p.total.new)}.` },
  ];
  const rows = (list: Array<{ old: number | null; new: number | null }>, key: 'state' | 'category') =>
    list.map((row) => ({ [key]: (row as unknown as Record<string, string>)[key], old: value(row.old), new: value(row.new) }));
  if (p.by_state.length)
    blocks.push({
      kind: 'table',
      columns: [{ key: 'state' }, { key: 'old', right: true }, { key: 'new', right: true }],
      rows: rows(p.by_state, 'state'),
    });
  if (p.by_category.length)
    blocks.push(
      { kind: 'text', text: 'Clinicians per 100,000 residents by category (provider_coverage):' },
      {
        kind: 'table',
        columns: [{ key: 'category' }, { key: 'old', right: true }, { key: 'new', right: true }],
        rows: rows(p.by_category, 'category'),
      },
    );
  return blocks;
}

/**
 * The error of placing a county's clinician count within the county (docs/METHODOLOGY.md, "Counts placed where
 * residents are"): not a speed benchmark but the accuracy measurement the methodology quotes, rerun with
 *   node bin/run-ts.js bench/placement-error.ts [--manifest raw/manifests/shared-data.json]
 * The Dartmouth Atlas's 2010 physicians per census tract are the truth: each county's total placed by its own
 * tracts, against the same total placed by the county's residents, and the specialists placed like primary
 * care physicians (config PLACED_LIKE's proxy). For each: the share of clinicians that land in another ZIP, and
 * how far the category's E2SFCA score moves (on the category's log scale, at the national benchmark density).
 */
import { tmpdir } from 'node:os';
import path from 'node:path';
import { planBuild } from '../pipeline/run/plan.ts';
import { openOutput, discardOutput } from '../pipeline/run/output.ts';
import { readSources, placeZips } from '../pipeline/run/stages.ts';
import { countsByKind, type CountyCount } from '../pipeline/supply/counts.ts';
import { CountyZips } from '../pipeline/supply/county-zips.ts';
import { TractZips } from '../pipeline/supply/tracts.ts';
import { placeKind } from '../pipeline/supply/place.ts';
import { buildNetwork, stepWeights } from '../pipeline/score/network.ts';
import { fcaIndexed } from '../pipeline/accessibility.ts';
import { PROVIDER_BENCHMARKS, PROVIDER_STEPS } from '../pipeline/config/scoring.ts';
import { logScore } from '../pipeline/score/scale.ts';
const at = process.argv.indexOf('--manifest');
const manifest = at > 0 ? process.argv[at + 1] : 'raw/manifests/shared-data.json';
const scratch = path.join(tmpdir(), `hcas-placement-error-${process.pid}.sqlite`);
const plan = planBuild({ manifest });
const output = openOutput(scratch);
const read = await readSources(plan, output.db, output.reconciler, {}, () => {});
const geo = placeZips(read.data, output.db, output.reconciler, () => {});
const dartmouth = read.data.clinicianCounts.filter((s) => s.area === 'tract');
if (dartmouth.length === 0)
  throw new Error(`${manifest} names no clinician count file per census tract (options.area "tract"): nothing to measure against`);
const countyZips = new CountyZips(geo.places, read.data);
const tractZips = new TractZips(read.data.tractCentres, geo.places, countyZips);
const { counties } = countsByKind(dartmouth, (z) => geo.zipIndex.get(z), countyZips);
const strip = (m: Map<string, CountyCount[]>) =>
  new Map([...m].map(([c, list]) => [c, list.map(({ within, ...rest }) => rest as CountyCount)]));
const n = geo.places.length;
const network = buildNetwork(geo.places, geo.index, 60);
const weights = stepWeights(network, PROVIDER_STEPS);
const demand = Float64Array.from(geo.places, (p) => Math.max(0, p.population ?? 0));
const score = (supply: Float64Array, bench: { zeroAt: number; fullAt: number }, scale: number) =>
  fcaIndexed({ demand, supply: supply.map((s) => s * scale), edgeDemand: network.from, edgeSupply: network.to, edgeWeight: weights }).map(
    (a) => logScore(a * 1e5, bench),
  );
const pop = demand.reduce((a, b) => a + b, 0);
function compare(label: string, truth: Float64Array, method: Float64Array, bench: { zeroAt: number; fullAt: number }) {
  const total = truth.reduce((a, b) => a + b, 0);
  let moved = 0;
  for (let i = 0; i < n; i++) moved += Math.abs(truth[i] - method[i]);
  // Scale both to the benchmark's national density so the scores compare at the scale the build uses.
  const scale = ((bench.fullAt / 2) * (pop / 1e5)) / total;
  const a = score(truth, bench, scale),
    b = score(method, bench, scale);
  const diffs: Array<[number, number]> = [];
  for (let i = 0; i < n; i++) if (demand[i] > 0) diffs.push([Math.abs(a[i] - b[i]), demand[i]]);
  diffs.sort((x, y) => x[0] - y[0]);
  const wq = (q: number) => {
    let acc = 0;
    for (const [d, w] of diffs) {
      acc += w;
      if (acc >= q * pop) return d.toFixed(1);
    }
    return 'x';
  };
  const uq = (q: number) => diffs[Math.floor(q * diffs.length)][0].toFixed(1);
  console.log(
    `${label}: ${((50 * moved) / total).toFixed(1)}% of clinicians in another ZIP; category score difference: residents-weighted median ${wq(0.5)}, p90 ${wq(0.9)}; ZIP median ${uq(0.5)}, p90 ${uq(0.9)}`,
  );
}
for (const kind of ['primary_care_physicians', 'specialist_physicians']) {
  const byCounty = counties.get(kind)!;
  const truth = placeKind(byCounty, countyZips, tractZips, n).perZip;
  const residents = placeKind(strip(byCounty), countyZips, tractZips, n).perZip;
  compare(
    `${kind} by residents`,
    truth,
    residents,
    kind === 'primary_care_physicians' ? PROVIDER_BENCHMARKS.primary_care : PROVIDER_BENCHMARKS.cardiology,
  );
}
const sp = counties.get('specialist_physicians')!;
const like = placeKind(strip(sp), countyZips, tractZips, n, counties.get('primary_care_physicians')!).perZip;
compare(
  'specialist_physicians like primary care physicians',
  placeKind(sp, countyZips, tractZips, n).perZip,
  like,
  PROVIDER_BENCHMARKS.cardiology,
);
discardOutput(output);

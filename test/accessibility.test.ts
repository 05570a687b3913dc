import { describe, expect, it } from 'vitest';
import { enhancedTwoStageFca, fcaIndexed, twoStageFca, type CostEdge } from '../pipeline/accessibility.ts';
import { seeded as mulberry32 } from './helpers/seeded.ts';

// Upstream reference: PySAL access (github.com/pysal/access). Implementation under test mirrors
// access/fca.py `two_stage_fca` and access/access.py `Access.enhanced_two_stage_fca`.

/** Relative comparison, because accessibility values span 1e-4 (people) to 1e+1 (grid fixtures). */
function expectClose(actual: number | undefined, expected: number, rel = 1e-12): void {
  expect(actual).toBeTypeOf('number');
  expect(Math.abs((actual as number) - expected)).toBeLessThanOrEqual(rel * Math.max(1, Math.abs(expected)));
}

// ---------------------------------------------------------------------------------------------
// Port of access/tests/util.py (`create_nxn_grid`, `create_cost_matrix`): an n x n grid of points with
// value 1, ids 1..n*n (x outer loop, y inner loop), and a full euclidean cost matrix including self-edges (cost 0).
function grid(n: number): Array<{ id: string; x: number; y: number }> {
  const points: Array<{ id: string; x: number; y: number }> = [];
  let id = 0;
  for (let x = 0; x < n; x++) for (let y = 0; y < n; y++) points.push({ id: String(++id), x, y });
  return points;
}
function euclideanCosts(points: Array<{ id: string; x: number; y: number }>): CostEdge[] {
  const edges: CostEdge[] = [];
  for (const o of points)
    for (const d of points) edges.push({ demand: o.id, supply: d.id, cost: Math.sqrt((o.x - d.x) ** 2 + (o.y - d.y) ** 2) });
  return edges;
}
/** Upstream uses `supply_grid.sample(k)` (unseeded); the expected values hold for any sample, so we try several. */
function gridFixture(sampleSize: number, seed: number) {
  const points = grid(5);
  const rand = mulberry32(seed);
  const ids = points.map((p) => p.id);
  for (let i = ids.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [ids[i], ids[j]] = [ids[j], ids[i]];
  }
  return {
    demand: new Map(ids.slice(0, sampleSize).map((id) => [id, 1])),
    supply: new Map(points.map((p) => [p.id, 1])),
    // The full 25 x 25 matrix, so it also has edges from grid points that are not demand points (dropped, as upstream).
    edges: euclideanCosts(points),
  };
}
/** PySAL's default E2SFCA weight, `weights.step_fn({10: 1, 20: 0.68, 30: 0.22})` (access/access.py). */
const PYSAL_DEFAULT_STEPS: Array<[number, number]> = [
  [10, 1],
  [20, 0.68],
  [30, 0.22],
];

describe('upstream: access/tests/test_floating_catchment_area.py (5x5 grid fixture)', () => {
  for (const seed of [1, 2, 3]) {
    // Current upstream version: demand_grid = supply_grid.sample(5).
    it(`two_stage_fca large catchment = 5 (max_cost=None -> Infinity), sample seed ${seed}`, () => {
      const result = twoStageFca({ ...gridFixture(5, seed), maxCost: Infinity });
      expect(result.size).toBe(5);
      for (const value of result.values()) expectClose(value, 5); // 25 supplies x (1 / 5 demand)
    });
    it(`two_stage_fca small catchment (max_cost .9) = 1, sample seed ${seed}`, () => {
      for (const value of twoStageFca({ ...gridFixture(5, seed), maxCost: 0.9 }).values()) expect(value).toBe(1);
    });
    it(`enhanced_two_stage_fca large catchment (default steps) = 5, sample seed ${seed}`, () => {
      // Grid costs are at most sqrt(32) ~ 5.66, so every edge falls in the first step (weight 1).
      for (const value of enhancedTwoStageFca({ ...gridFixture(5, seed), steps: PYSAL_DEFAULT_STEPS }).values()) expectClose(value, 5);
    });
    it(`enhanced_two_stage_fca small catchment (max_cost .9) = 1, sample seed ${seed}`, () => {
      // Upstream: default steps + max_cost .9 keeps only self-edges with weight 1; the equivalent step list is [[0.9, 1]].
      for (const value of enhancedTwoStageFca({ ...gridFixture(5, seed), steps: [[0.9, 1]] }).values()) expect(value).toBe(1);
    });
    // Older upstream version (commit 19d3fc4d / b3d1ba7d of the same file): demand_grid = supply_grid.sample(1), expected 25.
    it(`two_stage_fca / enhanced large catchment = 25 with a single demand point, sample seed ${seed}`, () => {
      expectClose(
        twoStageFca({ ...gridFixture(1, seed), maxCost: Infinity })
          .values()
          .next().value,
        25,
      );
      expectClose(
        enhancedTwoStageFca({ ...gridFixture(1, seed), steps: PYSAL_DEFAULT_STEPS })
          .values()
          .next().value,
        25,
      );
    });
  }
  it('zero catchment: upstream returns NaN (max_cost=0 with strict <); here maxCost 0 is rejected outright', () => {
    expect(() => twoStageFca({ ...gridFixture(5, 1), maxCost: 0 })).toThrow(/maxCost is 0; it must be a number > 0/);
  });
});

// ---------------------------------------------------------------------------------------------
// Port of access/tests/test_hospital_example.py: three tracts that are both demand and supply,
// four travel-cost scenarios, gravity weight weights.gravity(1, -1) = 1 / cost, max_cost 61.
const TRACTS = [
  { geoid: '1', pop: 100, doc: 15 },
  { geoid: '2', pop: 50, doc: 20 },
  { geoid: '3', pop: 10, doc: 100 },
];
const scenario = (self: number, inbound: number, outbound: number, cross: number): CostEdge[] => [
  { demand: '1', supply: '1', cost: self },
  { demand: '2', supply: '2', cost: self },
  { demand: '3', supply: '3', cost: self },
  { demand: '1', supply: '3', cost: inbound },
  { demand: '2', supply: '3', cost: inbound },
  { demand: '3', supply: '1', cost: outbound },
  { demand: '3', supply: '2', cost: outbound },
  { demand: '1', supply: '2', cost: cross },
  { demand: '2', supply: '1', cost: cross },
];
const SCENARIOS = [
  scenario(1, 40, 40, 80), // 0: gridlock
  scenario(1, 20, 40, 80), // 1: faster travel into the city
  scenario(1, 40, 20, 80), // 2: faster travel out of the city
  scenario(1, 20, 20, 40), // 3: symmetric, faster
];
const gravity = (cost: number) => 1 / Math.max(cost, 0); // weights.gravity(scale=1, alpha=-1, min_dist=0)

/** Port of upstream `simple_2sfca` (the test's own plain reference), with od[res][hosp] = cost res -> hosp. */
function simple2sfca(edges: CostEdge[], maxTravel = 61): Map<string, number> {
  const locs = TRACTS.map((t) => t.geoid);
  const od = (res: string, hosp: string) => edges.find((e) => e.demand === res && e.supply === hosp)!.cost;
  const pop = (id: string) => TRACTS.find((t) => t.geoid === id)!.pop;
  const doc = (id: string) => TRACTS.find((t) => t.geoid === id)!.doc;
  const d = new Map(locs.map((h) => [h, locs.filter((r) => od(r, h) < maxTravel).reduce((sum, r) => sum + pop(r) / od(r, h), 0)]));
  const r = new Map(locs.map((l) => [l, doc(l) / d.get(l)!]));
  return new Map(locs.map((res) => [res, locs.filter((h) => od(res, h) < maxTravel).reduce((sum, h) => sum + r.get(h)! / od(res, h), 0)]));
}

describe('upstream: access/tests/test_hospital_example.py', () => {
  const demand = new Map(TRACTS.map((t) => [t.geoid, t.pop]));
  const supply = new Map(TRACTS.map((t) => [t.geoid, t.doc]));
  const val = SCENARIOS.map((edges) => twoStageFca({ demand, supply, edges, maxCost: 61, weight: gravity }));

  SCENARIOS.forEach((edges, n) => {
    it(`test_simple_2sfca_scenario_${n}: matches the upstream simple_2sfca reference`, () => {
      const reference = simple2sfca(edges);
      for (const id of ['1', '2', '3']) expectClose(val[n].get(id), reference.get(id)!);
    });
  });

  it('scenario 0 by hand (weight 1/cost in both steps; the 80-minute cross-city edges are outside 61)', () => {
    // Step 1, weighted demand at each supply:
    //   D1 = 100/1 + 10/40 = 100.25;  D2 = 50/1 + 10/40 = 50.25;  D3 = 10/1 + 100/40 + 50/40 = 13.75
    // Ratios: R1 = 15/100.25, R2 = 20/50.25, R3 = 100/13.75 = 7.2727...
    // Step 2: A1 = R1/1 + R3/40 ~ 0.149626 + 0.181818 = 0.331444
    //         A2 = R2/1 + R3/40 ~ 0.398010 + 0.181818 = 0.579828
    //         A3 = R3/1 + R1/40 + R2/40 ~ 7.272727 + 0.003741 + 0.009950 = 7.286418
    const r1 = 15 / 100.25,
      r2 = 20 / 50.25,
      r3 = 100 / 13.75;
    expectClose(val[0].get('1'), r1 + r3 / 40);
    expectClose(val[0].get('2'), r2 + r3 / 40);
    expectClose(val[0].get('3'), r3 + r1 / 40 + r2 / 40);
    expectClose(val[0].get('1'), 0.331444, 1e-6);
    expectClose(val[0].get('2'), 0.579828, 1e-6);
    expectClose(val[0].get('3'), 7.286418, 1e-6);
  });

  it('test_scenario_0_v_1: faster inbound raises access at 1 and 2, lowers it at 3', () => {
    expect(val[1].get('1')!).toBeGreaterThan(val[0].get('1')!);
    expect(val[1].get('2')!).toBeGreaterThan(val[0].get('2')!);
    expect(val[1].get('3')!).toBeLessThan(val[0].get('3')!);
  });
  it('test_scenario_0_v_2: faster outbound lowers access at 1 and 2, raises it at 3', () => {
    expect(val[2].get('1')!).toBeLessThan(val[0].get('1')!);
    expect(val[2].get('2')!).toBeLessThan(val[0].get('2')!);
    expect(val[2].get('3')!).toBeGreaterThan(val[0].get('3')!);
  });
  it('test_scenario_0_v_3: symmetric faster travel raises access at 1 and 2, lowers it at 3', () => {
    expect(val[3].get('1')!).toBeGreaterThan(val[0].get('1')!);
    expect(val[3].get('2')!).toBeGreaterThan(val[0].get('2')!);
    expect(val[3].get('3')!).toBeLessThan(val[0].get('3')!);
  });
});

// ---------------------------------------------------------------------------------------------
describe('hand-computed cases', () => {
  it('E2SFCA: step weights apply in both steps; a cost equal to a step limit takes that step; beyond the last step is excluded', () => {
    const demand = new Map([
      ['A', 100],
      ['B', 50],
      ['C', 20],
    ]);
    const supply = new Map([
      ['X', 10],
      ['Y', 5],
    ]);
    const edges: CostEdge[] = [
      { demand: 'A', supply: 'X', cost: 5 }, //  w = 1
      { demand: 'A', supply: 'Y', cost: 15 }, // w = 0.5
      { demand: 'B', supply: 'X', cost: 25 }, // w = 0.25
      { demand: 'B', supply: 'Y', cost: 10 }, // w = 1 (exactly the first limit)
      { demand: 'C', supply: 'X', cost: 31 }, // beyond 30: excluded
    ];
    // Steps deliberately out of order: they are sorted by maxCost.
    const result = enhancedTwoStageFca({
      demand,
      supply,
      edges,
      steps: [
        [30, 0.25],
        [10, 1],
        [20, 0.5],
      ],
    });
    // DX = 100*1 + 50*0.25 = 112.5 -> RX = 10/112.5 = 0.0888...
    // DY = 100*0.5 + 50*1 = 100    -> RY = 5/100 = 0.05
    // A_A = RX*1 + RY*0.5 = 0.0888... + 0.025 = 0.113888...
    // A_B = RX*0.25 + RY*1 = 0.0222... + 0.05 = 0.072222...
    expectClose(result.get('A'), 10 / 112.5 + 0.05 * 0.5);
    expectClose(result.get('B'), (10 / 112.5) * 0.25 + 0.05);
    expectClose(result.get('A'), 0.1138888889, 1e-9);
    expectClose(result.get('B'), 0.0722222222, 1e-9);
    expect(result.get('C')).toBeNaN();
    expect([...result.keys()]).toEqual(['A', 'B', 'C']);
  });

  it('PySAL default steps {10: 1, 20: 0.68, 30: 0.22}, like the step_fn docstring example', () => {
    // step_fn docstring: {0: 1, 10: 1, 20: 1, 30: 0.68, 40: 0.68, 50: 0.22, 60: 0.22, 70: 0} for {20: 1, 40: 0.68, 60: 0.22}.
    // One demand point (pop 1) and one supply (capacity 1) per cost: A = (1 / w) * w = 1 whenever w > 0, NaN when excluded.
    const steps: Array<[number, number]> = [
      [20, 1],
      [40, 0.68],
      [60, 0.22],
    ];
    const costs = [0, 10, 20, 30, 40, 50, 60, 70];
    const edges = costs.map((c) => ({ demand: `d${c}`, supply: `s${c}`, cost: c }));
    const result = enhancedTwoStageFca({
      demand: new Map(costs.map((c) => [`d${c}`, 1])),
      supply: new Map(costs.map((c) => [`s${c}`, 1])),
      edges,
      steps,
    });
    for (const c of costs.slice(0, 7)) expectClose(result.get(`d${c}`), 1);
    expect(result.get('d70')).toBeNaN();
    // With a second demand point at cost 0 on the same supply, the weight becomes visible: D = 1*1 + 1*w, A0 = 1/(1+w).
    for (const [c, w] of [
      [10, 1],
      [30, 0.68],
      [40, 0.68],
      [50, 0.22],
      [60, 0.22],
    ]) {
      const two = enhancedTwoStageFca({
        demand: new Map([
          ['near', 1],
          ['far', 1],
        ]),
        supply: new Map([['s', 1]]),
        steps,
        edges: [
          { demand: 'near', supply: 's', cost: 0 },
          { demand: 'far', supply: 's', cost: c },
        ],
      });
      expectClose(two.get('near'), 1 / (1 + w));
      expectClose(two.get('far'), w / (1 + w));
    }
  });

  it('the distance weight is applied in both steps (not just one)', () => {
    // A (pop 10, cost 1) and B (pop 10, cost 2) share X (capacity 30); weight 1/cost, maxCost 5.
    // Both steps: D = 10*1 + 10*0.5 = 15, R = 2, A_A = 2*1 = 2, A_B = 2*0.5 = 1.
    // (Step 1 only would give 2 and 2; step 2 only 1.5 and 0.75; unweighted 1.5 and 1.5.)
    const result = twoStageFca({
      demand: new Map([
        ['A', 10],
        ['B', 10],
      ]),
      supply: new Map([['X', 30]]),
      maxCost: 5,
      weight: (c) => 1 / c,
      edges: [
        { demand: 'A', supply: 'X', cost: 1 },
        { demand: 'B', supply: 'X', cost: 2 },
      ],
    });
    expectClose(result.get('A'), 2);
    expectClose(result.get('B'), 1);
  });

  it('default weight is 1 everywhere inside the catchment (plain 2SFCA)', () => {
    // D = 10 + 30 = 40, R = 8/40 = 0.2; both demand points get 0.2 regardless of cost.
    const result = twoStageFca({
      demand: new Map([
        ['A', 10],
        ['B', 30],
      ]),
      supply: new Map([['X', 8]]),
      maxCost: 30,
      edges: [
        { demand: 'A', supply: 'X', cost: 1 },
        { demand: 'B', supply: 'X', cost: 29 },
      ],
    });
    expectClose(result.get('A'), 0.2);
    expectClose(result.get('B'), 0.2);
  });

  it('boundary: an edge with cost exactly maxCost is inside the catchment', () => {
    const args = { demand: new Map([['A', 4]]), supply: new Map([['X', 2]]), edges: [{ demand: 'A', supply: 'X', cost: 10 }] };
    expect(twoStageFca({ ...args, maxCost: 10 }).get('A')).toBe(0.5); // 2 / 4
    expect(twoStageFca({ ...args, maxCost: 9.999 }).get('A')).toBeNaN();
  });

  it('unreachable demand points (no edges, or only edges beyond maxCost) are NaN and still in the result', () => {
    const result = twoStageFca({
      demand: new Map([
        ['A', 10],
        ['far', 5],
        ['isolated', 7],
      ]),
      supply: new Map([['X', 1]]),
      maxCost: 30,
      edges: [
        { demand: 'A', supply: 'X', cost: 3 },
        { demand: 'far', supply: 'X', cost: 45 },
      ],
    });
    expect([...result.keys()]).toEqual(['A', 'far', 'isolated']);
    expectClose(result.get('A'), 0.1); // 1 / 10: 'far' is outside, so it does not add to X's demand
    expect(result.get('far')).toBeNaN();
    expect(result.get('isolated')).toBeNaN();
  });

  it('a supply reachable only by zero-population demand gets ratio 0 instead of dividing by zero', () => {
    // X (capacity 5) sees only Z (pop 0): weighted demand 0, so R_X = 0 (PySAL would compute 5/0 = Infinity here).
    // Y (capacity 3) sees A (pop 10) and Z: D_Y = 10, R_Y = 0.3. Then A_Z = R_X + R_Y = 0.3 and A_A = 0.3.
    const result = twoStageFca({
      demand: new Map([
        ['Z', 0],
        ['A', 10],
      ]),
      supply: new Map([
        ['X', 5],
        ['Y', 3],
      ]),
      maxCost: 10,
      edges: [
        { demand: 'Z', supply: 'X', cost: 1 },
        { demand: 'Z', supply: 'Y', cost: 2 },
        { demand: 'A', supply: 'Y', cost: 2 },
      ],
    });
    expectClose(result.get('Z'), 0.3);
    expectClose(result.get('A'), 0.3);
    for (const value of result.values()) expect(Number.isFinite(value)).toBe(true);
  });

  it('a supply with zero capacity contributes 0 but still makes its demand points reachable', () => {
    const result = twoStageFca({
      demand: new Map([['A', 10]]),
      supply: new Map([['X', 0]]),
      maxCost: 10,
      edges: [{ demand: 'A', supply: 'X', cost: 1 }],
    });
    expect(result.get('A')).toBe(0);
  });

  it('duplicate edges count twice in both steps, as rows do in PySAL (merge + groupby sum)', () => {
    // A-X appears twice: D_X = 10*2 + 10 = 30, R_X = 5/30; A_A = 2 * R_X = 1/3, A_B = R_X = 1/6.
    const result = twoStageFca({
      demand: new Map([
        ['A', 10],
        ['B', 10],
      ]),
      supply: new Map([['X', 5]]),
      maxCost: 10,
      edges: [
        { demand: 'A', supply: 'X', cost: 1 },
        { demand: 'A', supply: 'X', cost: 1 },
        { demand: 'B', supply: 'X', cost: 1 },
      ],
    });
    expectClose(result.get('A'), 1 / 3);
    expectClose(result.get('B'), 1 / 6);
  });

  it('edges with unknown ids: unknown demand is dropped, unknown supply counts as capacity 0', () => {
    // 'ghost' is not a demand point, so it does not dilute X (PySAL's inner merge); 'nowhere' is not a supply
    // (PySAL's fillna(0)), so B is reachable with access 0 rather than NaN.
    const result = twoStageFca({
      demand: new Map([
        ['A', 10],
        ['B', 10],
      ]),
      supply: new Map([['X', 5]]),
      maxCost: 10,
      edges: [
        { demand: 'A', supply: 'X', cost: 1 },
        { demand: 'ghost', supply: 'X', cost: 1 },
        { demand: 'B', supply: 'nowhere', cost: 1 },
      ],
    });
    expectClose(result.get('A'), 0.5);
    expect(result.get('B')).toBe(0);
    expect(result.has('ghost')).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------------
describe('input validation', () => {
  const demand = new Map([['A', 1]]);
  const supply = new Map([['B', 1]]);
  const edgesWith = (cost: number): CostEdge[] => [
    { demand: 'A', supply: 'B', cost: 1 },
    { demand: 'A', supply: 'B', cost: 2 },
    { demand: 'A', supply: 'B', cost: 3 },
    { demand: 'A', supply: 'B', cost },
  ];

  it('rejects NaN, negative and infinite costs with the edge index, ids and the fix', () => {
    expect(() => twoStageFca({ demand, supply, edges: edgesWith(NaN), maxCost: 10 })).toThrow(
      'edge 3 (demand "A", supply "B") has cost NaN; costs must be finite numbers >= 0',
    );
    expect(() => twoStageFca({ demand, supply, edges: edgesWith(-1), maxCost: 10 })).toThrow(
      'edge 3 (demand "A", supply "B") has cost -1; costs must be finite numbers >= 0',
    );
    expect(() => enhancedTwoStageFca({ demand, supply, edges: edgesWith(Infinity), steps: [[10, 1]] })).toThrow(
      'edge 3 (demand "A", supply "B") has cost Infinity; costs must be finite numbers >= 0',
    );
  });

  it('rejects maxCost <= 0 or NaN', () => {
    for (const maxCost of [0, -5, NaN]) {
      expect(() => twoStageFca({ demand, supply, edges: edgesWith(1), maxCost })).toThrow(`maxCost is ${maxCost}; it must be a number > 0`);
    }
  });

  it('rejects empty or ill-formed steps', () => {
    const run = (steps: unknown) => () =>
      enhancedTwoStageFca({ demand, supply, edges: edgesWith(1), steps: steps as Array<[number, number]> });
    expect(run([])).toThrow('steps must be a non-empty array of [maxCost, weight] pairs');
    expect(run(undefined)).toThrow('steps must be a non-empty array');
    expect(run([[10]])).toThrow('steps[0] is [10]; each step must be a [maxCost, weight] pair of numbers');
    expect(
      run([
        [10, 1],
        ['20', 0.5],
      ]),
    ).toThrow('steps[1] is ["20",0.5]; each step must be a [maxCost, weight] pair');
    expect(run([[0, 1]])).toThrow('steps[0] has maxCost 0; it must be a number > 0');
    expect(run([[NaN, 1]])).toThrow('steps[0] has maxCost NaN; it must be a number > 0');
    expect(run([[10, -1]])).toThrow('steps[0] has weight -1; weights must be finite numbers >= 0'); // step_fn: "All weights must be positive."
    expect(
      run([
        [10, 1],
        [10, 0.5],
      ]),
    ).toThrow('steps has maxCost 10 twice; each step needs a distinct maxCost');
  });

  it("does not reorder the caller's steps array", () => {
    const steps: Array<[number, number]> = [
      [30, 0.2],
      [10, 1],
    ];
    enhancedTwoStageFca({ demand, supply, edges: edgesWith(1), steps });
    expect(steps).toEqual([
      [30, 0.2],
      [10, 1],
    ]);
  });

  it('rejects bad demand / supply values and bad weight function output', () => {
    expect(() => twoStageFca({ demand: new Map([['A', NaN]]), supply, edges: [], maxCost: 1 })).toThrow(
      'demand "A" is NaN; demand must be finite numbers >= 0',
    );
    expect(() => twoStageFca({ demand, supply: new Map([['B', -2]]), edges: [], maxCost: 1 })).toThrow(
      'supply "B" is -2; supply must be finite numbers >= 0',
    );
    expect(() => twoStageFca({ demand, supply, edges: [{ demand: 'A', supply: 'B', cost: 0 }], maxCost: 1, weight: (c) => 1 / c })).toThrow(
      'edge 0 (demand "A", supply "B", cost 0) got weight Infinity; the weight function must return finite numbers >= 0',
    );
  });

  it('fcaIndexed rejects mismatched lengths, out-of-range indexes and bad weights', () => {
    const base = {
      demand: new Float64Array([1, 2]),
      supply: new Float64Array([3]),
      edgeDemand: new Uint32Array([0, 1]),
      edgeSupply: new Uint32Array([0, 0]),
      edgeWeight: new Float64Array([1, 1]),
    };
    expect(() => fcaIndexed({ ...base, edgeWeight: new Float64Array([1]) })).toThrow('must have the same length');
    expect(() => fcaIndexed({ ...base, edgeSupply: new Uint32Array([0, 1]) })).toThrow(
      'edge 1 points at demand 1 / supply 1, but there are 2 demand and 1 supply entries',
    );
    expect(() => fcaIndexed({ ...base, edgeWeight: new Float64Array([1, NaN]) })).toThrow(
      'edge 1 has weight NaN; weights must be finite numbers >= 0',
    );
    expect(() => fcaIndexed({ ...base, demand: new Float64Array([1, -1]) })).toThrow('demand[1] is -1');
  });
});

// ---------------------------------------------------------------------------------------------
/** Plain, direct 2SFCA over the edge list and string ids, written independently of the typed-array core. */
function naiveFca(
  demand: Map<string, number>,
  supply: Map<string, number>,
  edges: CostEdge[],
  weight: (cost: number) => number,
): Map<string, number> {
  const inCatchment = edges.filter((e) => demand.has(e.demand) && weight(e.cost) > 0);
  const ratio = new Map<string, number>();
  for (const s of new Set(inCatchment.map((e) => e.supply))) {
    let weightedDemand = 0;
    for (const e of inCatchment) if (e.supply === s) weightedDemand += demand.get(e.demand)! * weight(e.cost);
    ratio.set(s, weightedDemand > 0 ? (supply.get(s) ?? 0) / weightedDemand : 0);
  }
  const result = new Map<string, number>();
  for (const d of demand.keys()) {
    const mine = inCatchment.filter((e) => e.demand === d);
    result.set(d, mine.length === 0 ? NaN : mine.reduce((sum, e) => sum + ratio.get(e.supply)! * weight(e.cost), 0));
  }
  return result;
}
/** Port of PySAL weights.step_fn: first threshold (ascending) with cost <= threshold, else 0. */
const stepFn = (steps: Array<[number, number]>) => (cost: number) => {
  for (const [limit, w] of [...steps].sort((a, b) => a[0] - b[0])) if (cost <= limit) return w;
  return 0;
};

function randomInstance(seed: number) {
  const rand = mulberry32(seed);
  const demand = new Map<string, number>();
  for (let i = 0; i < 200; i++) demand.set(`d${i}`, i % 37 === 0 ? 0 : Math.floor(rand() * 5000));
  const supply = new Map<string, number>();
  for (let j = 0; j < 50; j++) supply.set(`s${j}`, j % 11 === 0 ? 0 : Math.floor(rand() * 20));
  const edges: CostEdge[] = [];
  for (let i = 0; i < 190; i++) {
    // d190..d199 get no edges at all
    for (let j = 0; j < 50; j++) {
      if (rand() < 0.3) edges.push({ demand: `d${i}`, supply: `s${j}`, cost: Math.round(rand() * 120) / 2 }); // half-minute steps hit the limits exactly
    }
  }
  for (let k = 0; k < 25; k++) edges.push({ ...edges[Math.floor(rand() * edges.length)] }); // duplicates
  edges.push({ demand: 'unknown-demand', supply: 's1', cost: 1 }, { demand: 'd3', supply: 'unknown-supply', cost: 2 });
  return { demand, supply, edges };
}

describe('brute force against a naive implementation (seeded random instances, 200 demand x 50 supply)', () => {
  for (const seed of [42, 7, 2024]) {
    const { demand, supply, edges } = randomInstance(seed);

    it(`twoStageFca, unweighted and gravity-weighted, seed ${seed}`, () => {
      const cases: Array<[number, ((c: number) => number) | undefined]> = [
        [30, undefined],
        [30, (c) => Math.exp(-c / 15)],
        [45.5, (c) => 1 / (1 + c)],
      ];
      for (const [maxCost, weight] of cases) {
        const expected = naiveFca(demand, supply, edges, (c) => (c <= maxCost ? (weight ? weight(c) : 1) : 0));
        const actual = twoStageFca({ demand, supply, edges, maxCost, weight });
        expect([...actual.keys()]).toEqual([...demand.keys()]);
        for (const [id, value] of expected) {
          if (Number.isNaN(value)) expect(actual.get(id)).toBeNaN();
          else expectClose(actual.get(id), value, 1e-9);
        }
        expect([...actual.values()].filter(Number.isNaN).length).toBeGreaterThanOrEqual(10); // d190..d199 at least
      }
    });

    it(`enhancedTwoStageFca with PySAL default steps and a 4-step function, seed ${seed}`, () => {
      for (const steps of [
        PYSAL_DEFAULT_STEPS,
        [
          [45, 0.1],
          [7.5, 1],
          [15, 0.8],
          [30, 0.4],
        ] as Array<[number, number]>,
      ]) {
        const expected = naiveFca(demand, supply, edges, stepFn(steps));
        const actual = enhancedTwoStageFca({ demand, supply, edges, steps });
        for (const [id, value] of expected) {
          if (Number.isNaN(value)) expect(actual.get(id)).toBeNaN();
          else expectClose(actual.get(id), value, 1e-9);
        }
      }
    });
  }

  it('fcaIndexed reuses one interned edge list for several supply categories', () => {
    const { demand, edges } = randomInstance(99);
    const demandIds = [...demand.keys()];
    const supplyIds = Array.from({ length: 50 }, (_, j) => `s${j}`);
    const dIndex = new Map(demandIds.map((id, i) => [id, i]));
    const sIndex = new Map(supplyIds.map((id, j) => [id, j]));
    const kept = edges.filter((e) => dIndex.has(e.demand) && sIndex.has(e.supply));
    const edgeDemand = Uint32Array.from(kept, (e) => dIndex.get(e.demand)!);
    const edgeSupply = Uint32Array.from(kept, (e) => sIndex.get(e.supply)!);
    const edgeWeight = Float64Array.from(kept, (e) => (e.cost <= 30 ? 1 / (1 + e.cost) : 0));
    const demandArray = Float64Array.from(demandIds, (id) => demand.get(id)!);
    const rand = mulberry32(5);
    for (let category = 0; category < 3; category++) {
      const capacity = new Map(supplyIds.map((id) => [id, Math.floor(rand() * 10)]));
      const indexed = fcaIndexed({
        demand: demandArray,
        supply: Float64Array.from(supplyIds, (id) => capacity.get(id)!),
        edgeDemand,
        edgeSupply,
        edgeWeight,
      });
      const viaMaps = twoStageFca({ demand, supply: capacity, edges: kept, maxCost: 30, weight: (c) => 1 / (1 + c) });
      demandIds.forEach((id, i) => {
        if (Number.isNaN(viaMaps.get(id)!)) expect(indexed[i]).toBeNaN();
        else expect(indexed[i]).toBe(viaMaps.get(id));
      });
    }
  });
});

/**
 * Two-step floating catchment area (2SFCA) accessibility, following PySAL `access`
 * (access/fca.py `two_stage_fca`; `Access.enhanced_two_stage_fca` is the same code with a step weight).
 *
 * Conventions shared by every function here:
 * - The distance weight applies in both steps: R_j = S_j / sum_i D_i w(c_ij), A_i = sum_j R_j w(c_ij).
 * - Every demand id is in the result. A demand point with no edge of weight > 0 gets NaN, as PySAL's
 *   left join leaves NaN for locations with no edge inside the catchment (its zero-catchment tests assert isnan).
 * - Each edge counts on its own, so a duplicated edge is counted twice in both steps, as in PySAL's merge + groupby sum.
 * - Edges whose demand id is not in `demand` are dropped (PySAL's inner merge); supply ids not in `supply`
 *   count as capacity 0 (PySAL's fillna(0)).
 * - A supply whose weighted demand is 0 gets R_j = 0. PySAL divides anyway, which gives NaN (summed away as 0)
 *   or, when every reachable demand point has population 0, Infinity for those zero-population points.
 * - Deviation: the catchment includes its boundary (cost <= maxCost), like PySAL's `step_fn`; PySAL's `max_cost`
 *   filter itself is strict (cost < max_cost).
 *
 * @packageDocumentation
 */

/** One demand-to-supply travel cost (minutes, metres, ...; any unit, as long as maxCost/steps use the same). */
export interface CostEdge {
  demand: string;
  supply: string;
  cost: number;
}

/** Pre-interned input for {@link fcaIndexed}; edgeWeight 0 means the edge is outside the catchment. */
export interface IndexedFcaInput {
  demand: Float64Array;
  supply: Float64Array;
  edgeDemand: Uint32Array;
  edgeSupply: Uint32Array;
  edgeWeight: Float64Array;
}

/** Inputs shared by both public functions: id -> population, id -> capacity, and the cost edges. */
export interface FcaArgs {
  demand: Map<string, number>;
  supply: Map<string, number>;
  edges: CostEdge[];
}

const isNonNegativeFinite = (x: number): boolean => x >= 0 && x < Infinity; // false for NaN too

/** 2SFCA over interned arrays: returns accessibility per demand index (NaN where no edge has weight > 0). */
export function fcaIndexed(input: IndexedFcaInput): Float64Array {
  const { demand, supply, edgeDemand, edgeSupply, edgeWeight } = input;
  const nD = demand.length,
    nS = supply.length,
    nE = edgeWeight.length;
  if (edgeDemand.length !== nE || edgeSupply.length !== nE) {
    throw new Error(
      `edgeDemand (${edgeDemand.length}), edgeSupply (${edgeSupply.length}) and edgeWeight (${nE}) must have the same length`,
    );
  }
  for (let i = 0; i < nD; i++)
    if (!isNonNegativeFinite(demand[i])) throw new Error(`demand[${i}] is ${demand[i]}; demand must be finite numbers >= 0`);
  for (let j = 0; j < nS; j++)
    if (!isNonNegativeFinite(supply[j])) throw new Error(`supply[${j}] is ${supply[j]}; supply must be finite numbers >= 0`);
  // Typed arrays read out of range as undefined -> NaN, which would poison sums silently; check once up front.
  for (let e = 0; e < nE; e++) {
    if (edgeDemand[e] >= nD || edgeSupply[e] >= nS) {
      throw new Error(
        `edge ${e} points at demand ${edgeDemand[e]} / supply ${edgeSupply[e]}, but there are ${nD} demand and ${nS} supply entries`,
      );
    }
    if (!isNonNegativeFinite(edgeWeight[e])) throw new Error(`edge ${e} has weight ${edgeWeight[e]}; weights must be finite numbers >= 0`);
  }

  const weightedDemand = new Float64Array(nS);
  for (let e = 0; e < nE; e++) {
    const w = edgeWeight[e];
    if (w > 0) weightedDemand[edgeSupply[e]] += demand[edgeDemand[e]] * w;
  }
  const ratio = new Float64Array(nS); // stays 0 where nobody demands the supply, instead of S/0
  for (let j = 0; j < nS; j++) if (weightedDemand[j] > 0) ratio[j] = supply[j] / weightedDemand[j];

  const access = new Float64Array(nD);
  const reached = new Uint8Array(nD);
  for (let e = 0; e < nE; e++) {
    const w = edgeWeight[e];
    if (w > 0) {
      const i = edgeDemand[e];
      access[i] += ratio[edgeSupply[e]] * w;
      reached[i] = 1;
    }
  }
  for (let i = 0; i < nD; i++) if (!reached[i]) access[i] = NaN;
  return access;
}

/** Copies a Map's values into a typed array and its keys into an id -> index Map, rejecting bad values. */
function internValues(values: Map<string, number>, label: string, extraSlots: number): { index: Map<string, number>; array: Float64Array } {
  const index = new Map<string, number>();
  const array = new Float64Array(values.size + extraSlots);
  for (const [id, value] of values) {
    if (!isNonNegativeFinite(value)) throw new Error(`${label} "${id}" is ${value}; ${label} must be finite numbers >= 0`);
    array[index.size] = value;
    index.set(id, index.size);
  }
  return { index, array };
}

/** Interns ids once, weighting each edge with `weightOf` (0 = outside the catchment), then runs fcaIndexed. */
function runFca(args: FcaArgs, weightOf: (cost: number) => number): Map<string, number> {
  const { edges } = args;
  if (!(args.demand instanceof Map) || !(args.supply instanceof Map) || !Array.isArray(edges)) {
    throw new Error('demand and supply must be Maps (id -> value) and edges an array of { demand, supply, cost }');
  }
  const d = internValues(args.demand, 'demand', 0);
  // One shared capacity-0 slot for unknown supply ids: its ratio is 0 however many demand points share it.
  const s = internValues(args.supply, 'supply', 1);
  const unknownSupply = args.supply.size;

  const edgeDemand = new Uint32Array(edges.length);
  const edgeSupply = new Uint32Array(edges.length);
  const edgeWeight = new Float64Array(edges.length);
  let kept = 0;
  for (let e = 0; e < edges.length; e++) {
    const edge = edges[e];
    if (!isNonNegativeFinite(edge.cost)) {
      throw new Error(
        `edge ${e} (demand "${edge.demand}", supply "${edge.supply}") has cost ${edge.cost}; costs must be finite numbers >= 0`,
      );
    }
    const di = d.index.get(edge.demand);
    if (di === undefined) continue;
    const w = weightOf(edge.cost);
    if (!isNonNegativeFinite(w)) {
      throw new Error(
        `edge ${e} (demand "${edge.demand}", supply "${edge.supply}", cost ${edge.cost}) got weight ${w}; the weight function must return finite numbers >= 0`,
      );
    }
    edgeDemand[kept] = di;
    edgeSupply[kept] = s.index.get(edge.supply) ?? unknownSupply;
    edgeWeight[kept] = w;
    kept++;
  }

  const access = fcaIndexed({
    demand: d.array,
    supply: s.array,
    edgeDemand: edgeDemand.subarray(0, kept),
    edgeSupply: edgeSupply.subarray(0, kept),
    edgeWeight: edgeWeight.subarray(0, kept),
  });
  const result = new Map<string, number>();
  for (const [id, i] of d.index) result.set(id, access[i]);
  return result;
}

/** 2SFCA with catchment cost <= maxCost and optional distance weight (default 1) applied in both steps. */
export function twoStageFca(args: FcaArgs & { maxCost: number; weight?: (cost: number) => number }): Map<string, number> {
  const { maxCost, weight } = args;
  if (typeof maxCost !== 'number' || !(maxCost > 0)) {
    throw new Error(`maxCost is ${maxCost}; it must be a number > 0 (use Infinity for no cut-off, like PySAL's max_cost=None)`);
  }
  if (weight !== undefined && typeof weight !== 'function')
    throw new Error('weight must be a function (cost) => number, or omitted for weight 1');
  return runFca(args, (cost) => (cost <= maxCost ? (weight ? weight(cost) : 1) : 0));
}

/** Enhanced 2SFCA: an edge's weight is that of the first step (by maxCost ascending) with maxCost >= cost, else excluded. */
export function enhancedTwoStageFca(args: FcaArgs & { steps: Array<[maxCost: number, weight: number]> }): Map<string, number> {
  const { steps } = args;
  if (!Array.isArray(steps) || steps.length === 0) {
    throw new Error('steps must be a non-empty array of [maxCost, weight] pairs, e.g. [[10, 1], [20, 0.68], [30, 0.22]]');
  }
  steps.forEach((step, k) => {
    if (!Array.isArray(step) || step.length !== 2 || typeof step[0] !== 'number' || typeof step[1] !== 'number') {
      throw new Error(`steps[${k}] is ${JSON.stringify(step)}; each step must be a [maxCost, weight] pair of numbers`);
    }
    if (!(step[0] > 0)) throw new Error(`steps[${k}] has maxCost ${step[0]}; it must be a number > 0`);
    if (!isNonNegativeFinite(step[1])) throw new Error(`steps[${k}] has weight ${step[1]}; weights must be finite numbers >= 0`);
  });
  // Sort a copy so the caller's array keeps its order; step_fn likewise walks sorted(step_dict.items()).
  const sorted = [...steps].sort((a, b) => a[0] - b[0]);
  for (let k = 1; k < sorted.length; k++) {
    if (sorted[k][0] === sorted[k - 1][0]) throw new Error(`steps has maxCost ${sorted[k][0]} twice; each step needs a distinct maxCost`);
  }
  const limits = Float64Array.from(sorted, (step) => step[0]);
  const weights = Float64Array.from(sorted, (step) => step[1]);
  return runFca(args, (cost) => {
    for (let k = 0; k < limits.length; k++) if (cost <= limits[k]) return weights[k];
    return 0;
  });
}

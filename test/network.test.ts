import { describe, expect, it } from 'vitest';
import type { ZipPlace } from '../pipeline/geo/places.ts';
import { PointIndex } from '../pipeline/geo/point-index.ts';
import { buildNetwork, nearestSupplyMiles, stepWeights, type ZipNetwork } from '../pipeline/score/network.ts';
import { seeded } from './helpers/seeded.ts';

const network = (miles: number[]): ZipNetwork => ({
  from: Uint32Array.from(miles, () => 0),
  to: Uint32Array.from(miles, (_, i) => i),
  miles: Float64Array.from(miles),
});

describe('ZIP network step weights', () => {
  it('gives each edge the weight of the first step whose limit it is within, boundary included', () => {
    const steps: Array<[number, number]> = [
      [10, 1],
      [20, 0.68],
      [30, 0.22],
    ];
    const weights = stepWeights(network([0, 9.99, 10, 10.01, 20, 29.9, 30, 30.01, 500]), steps);
    expect([...weights]).toEqual([1, 1, 1, 0.68, 0.68, 0.22, 0.22, 0, 0]);
  });

  it('reads the steps in order of distance whatever order they are given in', () => {
    const weights = stepWeights(network([5, 15, 25]), [
      [30, 0.22],
      [10, 1],
      [20, 0.68],
    ]);
    expect([...weights]).toEqual([1, 0.68, 0.22]);
  });

  it('weighs an edge with unknown miles (NaN) 0, outside every catchment', () => {
    expect([...stepWeights(network([Number.NaN, 1]), [[10, 1]])]).toEqual([0, 1]);
  });

  it('finds the nearest ZIP with supply over the network, NaN when none is reachable', () => {
    // As buildNetwork lays them out: each ZIP's edges together, its own first, the others nearest first.
    const net: ZipNetwork = {
      from: Uint32Array.from([0, 0, 0, 1, 1]),
      to: Uint32Array.from([0, 2, 1, 1, 0]),
      miles: Float64Array.from([0.5, 7, 12, 0.3, 12]),
    };
    const nearest = nearestSupplyMiles(net, Float64Array.from([0, 3, 1]), 3);
    expect([...nearest]).toEqual([7, 0.3, Number.NaN]);
    // Its own supply counts at the trip inside it, which a neighbour nearer than that beats.
    expect([...nearestSupplyMiles({ ...net, miles: Float64Array.from([9, 7, 12, 0.3, 12]) }, Float64Array.from([1, 0, 1]), 3)]).toEqual([
      7,
      12,
      Number.NaN,
    ]);
  });

  it('gives on a built network what the minimum over every edge gives (brute force)', () => {
    const random = seeded(7);
    const places = Array.from({ length: 400 }, (_, i) => ({
      zip: String(i).padStart(5, '0'),
      longitude: -100 + random() * 4,
      latitude: 40 + random() * 3,
      landSqMi: random() * 200,
    })) as ZipPlace[];
    const index = new PointIndex(
      Float64Array.from(places, (p) => p.longitude),
      Float64Array.from(places, (p) => p.latitude),
    );
    const net = buildNetwork(places, index, 40);
    for (const share of [0.01, 0.1, 0.5]) {
      const supply = Float64Array.from(places, () => (random() < share ? 1 : 0));
      const brute = new Float64Array(places.length).fill(Number.NaN);
      for (let e = 0; e < net.from.length; e++)
        if (supply[net.to[e]] > 0 && !(brute[net.from[e]] <= net.miles[e])) brute[net.from[e]] = net.miles[e];
      expect([...nearestSupplyMiles(net, supply, places.length)]).toEqual([...brute]);
    }
  });
});

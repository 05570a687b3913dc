import { describe, expect, it } from 'vitest';
import { nearestSupplyMiles, stepWeights, type ZipNetwork } from '../pipeline/score/network.ts';

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
    const net: ZipNetwork = {
      from: Uint32Array.from([0, 0, 0, 1, 1]),
      to: Uint32Array.from([0, 1, 2, 1, 0]),
      miles: Float64Array.from([0.5, 12, 7, 0.3, 12]),
    };
    const nearest = nearestSupplyMiles(net, Float64Array.from([0, 3, 1]), 3);
    expect([...nearest]).toEqual([7, 0.3, Number.NaN]);
  });
});

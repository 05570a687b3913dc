import type KDBush from 'kdbush';
import { grown } from '../base/typed-arrays.ts';

/**
 * geokdbush's `around` (geokdbush 2, ISC licence, Vladimir Agafonkin), the same walk step for step, with its
 * priority queue (tinyqueue's binary heap, the same sift up and down) held in typed arrays instead of an
 * object per tree node and per point. The answers are geokdbush's, ties in its order: the build's sums
 * over the travel network run in that order, so the tables stay the same to the last bit. A build asks it
 * about 70,000 times (every ZIP's 60-mile network, every nearest care point); the objects and the heap's
 * comparator calls were a fifth of the build's time.
 *
 * Returns how many ids it wrote into `out` (nearest first): points of `index` within `maxDistanceKm`, at
 * most `maxResults`, those `accept` takes.
 */
export function aroundInto(
  index: KDBush,
  lng: number,
  lat: number,
  maxResults: number,
  maxDistanceKm: number,
  accept: ((id: number) => boolean) | undefined,
  out: number[],
): number {
  const { ids, coords, nodeSize } = index as unknown as { ids: ArrayLike<number>; coords: ArrayLike<number>; nodeSize: number };
  // As geokdbush: for an unbounded search this is NaN, and no distance is past it.
  const maxHaverSinDist = haverSin(maxDistanceKm / EARTH_RADIUS_KM);
  const cosLat = Math.cos(lat * RAD);
  const heap = HEAP;
  const nodes = NODES;
  heap.length = 0;
  nodes.length = 0;
  let found = 0;

  let node = nodes.add(0, ids.length - 1, 0, -180, -90, 180, 90);
  while (node >= 0) {
    const right = nodes.right[node];
    const left = nodes.left[node];
    if (right - left <= nodeSize) {
      // A leaf: every point of it into the queue.
      for (let i = left; i <= right; i++) {
        const id = ids[i];
        if (!accept || accept(id)) heap.push(haverSinDist(lng, lat, coords[2 * i], coords[2 * i + 1], cosLat), -1 - id);
      }
    } else {
      const m = (left + right) >> 1;
      const midLng = coords[2 * m];
      const midLat = coords[2 * m + 1];
      const id = ids[m];
      if (!accept || accept(id)) heap.push(haverSinDist(lng, lat, midLng, midLat, cosLat), -1 - id);
      const axis = nodes.axis[node];
      const nextAxis = (axis + 1) % 2;
      const minLng = nodes.minLng[node];
      const minLat = nodes.minLat[node];
      const maxLng = nodes.maxLng[node];
      const maxLat = nodes.maxLat[node];
      const leftNode = nodes.add(left, m - 1, nextAxis, minLng, minLat, axis === 0 ? midLng : maxLng, axis === 1 ? midLat : maxLat);
      const rightNode = nodes.add(m + 1, right, nextAxis, axis === 0 ? midLng : minLng, axis === 1 ? midLat : minLat, maxLng, maxLat);
      heap.push(boxDist(lng, lat, cosLat, nodes, leftNode), leftNode);
      heap.push(boxDist(lng, lat, cosLat, nodes, rightNode), rightNode);
    }
    // The closest points from the queue: nearer than everything left in it, points and tree nodes alike.
    node = -1;
    while (heap.length > 0) {
      const dist = heap.topDist();
      const ref = heap.pop();
      if (ref >= 0) {
        node = ref;
        break;
      }
      if (dist > maxHaverSinDist) return found;
      out[found++] = -1 - ref;
      if (found === maxResults) return found;
    }
  }
  return found;
}

const EARTH_RADIUS_KM = 6371;
const RAD = Math.PI / 180;

/** tinyqueue's binary heap over (distance, reference) pairs: a reference >= 0 is a tree node, < 0 a point (-1 - id). */
class Heap {
  dist = new Float64Array(1024);
  ref = new Int32Array(1024);
  length = 0;

  push(dist: number, ref: number): void {
    if (this.length === this.dist.length) {
      this.dist = grown(this.dist, this.length * 2);
      this.ref = grown(this.ref, this.length * 2);
    }
    // tinyqueue's _up: an item rises while it is strictly nearer than its parent.
    let pos = this.length++;
    while (pos > 0) {
      const parent = (pos - 1) >> 1;
      if (dist - this.dist[parent] >= 0) break;
      this.dist[pos] = this.dist[parent];
      this.ref[pos] = this.ref[parent];
      pos = parent;
    }
    this.dist[pos] = dist;
    this.ref[pos] = ref;
  }

  topDist(): number {
    return this.dist[0];
  }

  /** Removes the top and answers its reference (the heap is not empty). */
  pop(): number {
    const top = this.ref[0];
    const last = --this.length;
    if (last > 0) {
      // tinyqueue's _down, with the last item moved to the top.
      const dist = this.dist[last];
      const ref = this.ref[last];
      const half = this.length >> 1;
      let pos = 0;
      while (pos < half) {
        let best = (pos << 1) + 1;
        const right = best + 1;
        if (right < this.length && this.dist[right] - this.dist[best] < 0) best = right;
        if (this.dist[best] - dist >= 0) break;
        this.dist[pos] = this.dist[best];
        this.ref[pos] = this.ref[best];
        pos = best;
      }
      this.dist[pos] = dist;
      this.ref[pos] = ref;
    }
    return top;
  }
}

/** The tree nodes a walk has opened: bounds, index range and axis, by number. */
class Nodes {
  left = new Int32Array(1024);
  right = new Int32Array(1024);
  axis = new Uint8Array(1024);
  minLng = new Float64Array(1024);
  minLat = new Float64Array(1024);
  maxLng = new Float64Array(1024);
  maxLat = new Float64Array(1024);
  length = 0;

  add(left: number, right: number, axis: number, minLng: number, minLat: number, maxLng: number, maxLat: number): number {
    if (this.length === this.left.length) this.grow();
    const n = this.length++;
    this.left[n] = left;
    this.right[n] = right;
    this.axis[n] = axis;
    this.minLng[n] = minLng;
    this.minLat[n] = minLat;
    this.maxLng[n] = maxLng;
    this.maxLat[n] = maxLat;
    return n;
  }

  private grow(): void {
    const length = this.length * 2;
    this.left = grown(this.left, length);
    this.right = grown(this.right, length);
    this.axis = grown(this.axis, length);
    this.minLng = grown(this.minLng, length);
    this.minLat = grown(this.minLat, length);
    this.maxLng = grown(this.maxLng, length);
    this.maxLat = grown(this.maxLat, length);
  }
}

// One heap and node pool, reused by every walk (a walk runs to its end before the next starts).
const HEAP = new Heap();
const NODES = new Nodes();

// geokdbush's distance functions, the same arithmetic in the same order.

/** Lower bound of the haversine value from the point to any point inside a node's box. */
function boxDist(lng: number, lat: number, cosLat: number, nodes: Nodes, n: number): number {
  const minLng = nodes.minLng[n];
  const maxLng = nodes.maxLng[n];
  const minLat = nodes.minLat[n];
  const maxLat = nodes.maxLat[n];
  if (lng >= minLng && lng <= maxLng) {
    if (lat < minLat) return haverSin((lat - minLat) * RAD);
    if (lat > maxLat) return haverSin((lat - maxLat) * RAD);
    return 0;
  }
  const haverSinDLng = Math.min(haverSin((lng - minLng) * RAD), haverSin((lng - maxLng) * RAD));
  const extremumLat = vertexLat(lat, haverSinDLng);
  if (extremumLat > minLat && extremumLat < maxLat) return haverSinDistPartial(haverSinDLng, cosLat, lat, extremumLat);
  return Math.min(haverSinDistPartial(haverSinDLng, cosLat, lat, minLat), haverSinDistPartial(haverSinDLng, cosLat, lat, maxLat));
}

function haverSin(theta: number): number {
  const s = Math.sin(theta / 2);
  return s * s;
}

function haverSinDistPartial(haverSinDLng: number, cosLat1: number, lat1: number, lat2: number): number {
  return cosLat1 * Math.cos(lat2 * RAD) * haverSinDLng + haverSin((lat1 - lat2) * RAD);
}

function haverSinDist(lng1: number, lat1: number, lng2: number, lat2: number, cosLat1: number): number {
  const haverSinDLng = haverSin((lng1 - lng2) * RAD);
  return haverSinDistPartial(haverSinDLng, cosLat1, lat1, lat2);
}

function vertexLat(lat: number, haverSinDLng: number): number {
  const cosDLng = 1 - 2 * haverSinDLng;
  if (cosDLng <= 0) return lat > 0 ? 90 : -90;
  return Math.atan(Math.tan(lat * RAD) / cosDLng) / RAD;
}

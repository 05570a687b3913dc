import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LAYOUTS } from '../pipeline/layouts/index.ts';
import { loadManifest } from '../pipeline/config/manifest.ts';
import { tempDir } from './helpers/files.ts';

const layouts = new Set(LAYOUTS.keys());
const write = (file: string, value: unknown) => writeFileSync(file, JSON.stringify(value));

describe('manifests', () => {
  it('include others: their sources first, each against its own root, replaced by key, the rest from the includer', () => {
    const dir = tempDir();
    write(path.join(dir, 'base.json'), {
      name: 'base',
      root: 'base-files',
      sources: {
        gazetteer: { layout: 'gazetteer_zcta', path: 'gaz.txt' },
        places: { layout: 'places_zcta', path: 'places.csv' },
      },
    });
    write(path.join(dir, 'top.json'), {
      name: 'top',
      synthetic: ['providers'],
      include: 'base.json',
      root: 'top-files',
      providers: { sample_fraction: 0.5 },
      sources: {
        places: { layout: 'places_zcta', path: 'newer-places.csv' },
        nppes: { layout: 'nppes', path: 'npi.csv' },
      },
    });
    const m = loadManifest(path.join(dir, 'top.json'), layouts);
    expect(m.sources.map((s) => [s.key, path.relative(dir, s.path)])).toEqual([
      ['gazetteer', path.join('base-files', 'gaz.txt')],
      ['places', path.join('top-files', 'newer-places.csv')],
      ['nppes', path.join('top-files', 'npi.csv')],
    ]);
    expect(m).toMatchObject({ name: 'top', synthetic: ['providers'], providers: { sampleFraction: 0.5 } });
  });

  it('leave out an included source the includer sets to null, and refuse a null that names none', () => {
    const dir = tempDir();
    write(path.join(dir, 'base.json'), {
      sources: { gazetteer: { layout: 'gazetteer_zcta', path: 'gaz.txt' }, roster: { layout: 'doctors_clinicians', path: 'r.csv' } },
    });
    write(path.join(dir, 'top.json'), { include: 'base.json', sources: { roster: null } });
    expect(loadManifest(path.join(dir, 'top.json'), layouts).sources.map((s) => s.key)).toEqual(['gazetteer']);
    write(path.join(dir, 'typo.json'), { include: 'base.json', sources: { rooster: null } });
    expect(() => loadManifest(path.join(dir, 'typo.json'), layouts)).toThrow(
      /key "sources\.rooster": null leaves out .* none names "rooster"/,
    );
  });

  it('refuse an include cycle and a malformed synthetic list, naming the key', () => {
    const dir = tempDir();
    write(path.join(dir, 'a.json'), { include: 'b.json', sources: {} });
    write(path.join(dir, 'b.json'), { include: 'a.json', sources: {} });
    expect(() => loadManifest(path.join(dir, 'a.json'), layouts)).toThrow(/key "include": a\.json includes itself/);
    write(path.join(dir, 'c.json'), { synthetic: 'providers', sources: {} });
    expect(() => loadManifest(path.join(dir, 'c.json'), layouts)).toThrow(/key "synthetic": true, false, or the list of synthetic parts/);
  });

  it('read a declared sample fraction from the file the sample writes, and say how to make it when it is missing', () => {
    const dir = tempDir();
    write(path.join(dir, 'declaration.json'), { sample_fraction: 0.0827 });
    write(path.join(dir, 'm.json'), { providers: { sample_fraction_file: 'declaration.json' }, sources: {} });
    expect(loadManifest(path.join(dir, 'm.json'), layouts).providers.sampleFraction).toBe(0.0827);
    write(path.join(dir, 'n.json'), { providers: { sample_fraction_file: 'nothing.json' }, sources: {} });
    expect(() => loadManifest(path.join(dir, 'n.json'), layouts)).toThrow(/providers\.sample_fraction_file.*Run hcas sample/);
  });
});

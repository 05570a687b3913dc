import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { build } from '../pipeline/run/index.ts';
import { tempDir, writeInput } from './helpers/files.ts';

/** A tiny but complete manifest: 3 ZCTAs and one ACS table, with optional broken rows. */
function tinyInputs(dir: string, options: { badAcsRows?: number } = {}) {
  writeInput(
    path.join(dir, 'gaz.txt'),
    'GEOID\tALAND_SQMI\tINTPTLAT\tINTPTLONG\n10001\t0.2\t40.75\t-73.99\n10002\t0.8\t40.71\t-73.98\n59001\t300\t45.5\t-109.5\n',
  );
  const bad = Array.from({ length: options.badAcsRows ?? 0 }, (_, i) => `1000${i},lots`).join('\n');
  writeInput(path.join(dir, 'acs.csv'), `zcta,pop\n10001,27000\n10002,74000\n59001,800\n${bad}\n`);
  const manifest = {
    name: 'tiny',
    synthetic: true,
    root: '.',
    max_reject_ratio: 0.2,
    providers: { on_partial_coverage: 'omit_component' } as Record<string, unknown>,
    sources: {
      gazetteer: { layout: 'gazetteer_zcta', path: 'gaz.txt' },
      acs: { layout: 'acs_zcta', path: 'acs.csv', columns: { zcta: 'zcta', population: 'pop' } },
    },
  };
  const file = path.join(dir, 'manifest.json');
  writeFileSync(file, JSON.stringify(manifest));
  return { file, manifest };
}

describe('build failures name the fix and never replace a good output', () => {
  it('builds the tiny manifest', async () => {
    const dir = tempDir();
    const { file } = tinyInputs(dir);
    const summary = await build({ manifest: file, out: path.join(dir, 'out.sqlite') });
    expect(summary.zips).toBe(3);
  });

  it('refuses provider files that do not cover the country unless told to leave the provider component out', async () => {
    const dir = tempDir();
    const { manifest } = tinyInputs(dir);
    delete manifest.providers.on_partial_coverage;
    writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(manifest));
    const out = path.join(dir, 'out.sqlite');
    await expect(build({ manifest: path.join(dir, 'manifest.json'), out })).rejects.toThrow(
      /No source counts clinicians: .*the rosters count 0% .*hcas fetch.*clinician count files \(layout clinician_counts.*"providers": \{ "sample_fraction": F \}.*"on_partial_coverage": "omit_component".*--allow-partial-providers/,
    );
    expect(existsSync(out)).toBe(false);
    const summary = await build({ manifest: path.join(dir, 'manifest.json'), out, allowPartialProviders: true });
    expect(summary.zips).toBe(3);
  });

  it('checks the providers section of the manifest', async () => {
    const dir = tempDir();
    const { manifest } = tinyInputs(dir);
    for (const [providers, message] of [
      [{ sample_fraction: 0 }, /providers\.sample_fraction.*above 0 and at most 1; got 0/],
      [{ on_partial_coverage: 'ignore' }, /providers\.on_partial_coverage.*"refuse", "omit_component"; got "ignore"/],
    ] as const) {
      writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify({ ...manifest, providers }));
      await expect(build({ manifest: path.join(dir, 'manifest.json'), out: path.join(dir, 'out.sqlite') })).rejects.toThrow(message);
    }
  });

  it('a missing file names the file and the manifest key', async () => {
    const dir = tempDir();
    const { manifest } = tinyInputs(dir);
    (manifest.sources.acs as any).path = 'nope.csv';
    writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(manifest));
    await expect(build({ manifest: path.join(dir, 'manifest.json'), out: path.join(dir, 'out.sqlite') })).rejects.toThrow(
      /source "acs": file not found: .*nope\.csv\. Fix the path in the manifest \(sources\.acs\.path\)/,
    );
  });

  it('a missing file of the shared-data manifest names --root, not hcas sample, which writes only the default build (issue 28)', async () => {
    const dir = tempDir();
    const root = path.resolve(import.meta.dirname, '..');
    const shared = build({
      manifest: path.join(root, 'raw/manifests/shared-data.json'),
      root: path.join(dir, 'none'),
      out: path.join(dir, 'a.sqlite'),
    });
    await expect(shared).rejects.toThrow(
      /file not found: .*none.*\. Fix the path in the manifest \(sources\.\w+\.path\), or name the folder that holds the manifest's files with --root DIR\.$/,
    );
    await expect(shared).rejects.not.toThrow(/hcas sample/);
  });

  it('an unknown layout lists the known ones', async () => {
    const dir = tempDir();
    const { manifest } = tinyInputs(dir);
    (manifest.sources.acs as any).layout = 'acs_tract';
    writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(manifest));
    await expect(build({ manifest: path.join(dir, 'manifest.json'), out: path.join(dir, 'out.sqlite') })).rejects.toThrow(
      /sources\.acs\.layout.*unknown layout "acs_tract"; known layouts: .*gazetteer_zcta/,
    );
  });

  it('above the reject ratio the build fails and the previous output stays in place', async () => {
    const dir = tempDir();
    const out = path.join(dir, 'out.sqlite');
    writeFileSync(out, 'previous good build');
    const { file } = tinyInputs(dir, { badAcsRows: 2 });
    await expect(build({ manifest: file, out })).rejects.toThrow(
      /too many invalid rows \(limit 20\.0% per file.*acs: 2 of 5 rows invalid \(40\.0%\)/,
    );
    expect(readFileSync(out, 'utf8')).toBe('previous good build');
    const leftovers = ['out.sqlite.tmp-', 'out.sqlite.stage-'].map((p) => path.join(dir, `${p}${process.pid}`));
    for (const f of leftovers) expect(existsSync(f)).toBe(false);
  });
});

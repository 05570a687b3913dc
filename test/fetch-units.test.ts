import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../core/package.ts';
import { jsonPath, pageLinks } from '../producers/fetch/discover.ts';
import { safeName } from '../producers/fetch/download-source.ts';
import { splitHeader } from '../producers/fetch/header.ts';
import { parseContentRange } from '../producers/fetch/http.ts';
import { byteProgress, formatByteProgress, formatBytes } from '../core/progress.ts';
import { expandEnv, loadSources } from '../producers/fetch/sources.ts';
import { LAYOUTS } from '../pipeline/layouts/index.ts';
import { tempDir } from './helpers/files.ts';

const LAYOUT_NAMES = new Set(LAYOUTS.keys());
/** `${NAME}`, the source list's syntax for an environment variable. */
const VAR = (name: string) => `$${'{'}${name}}`;
const COMMITTED = path.join(PACKAGE_ROOT, 'raw/national/sources.json');

function fakeOutput(isTTY: boolean) {
  const writes: string[] = [];
  return { stream: { isTTY, write: (text: string) => void writes.push(text) }, writes };
}

describe('download progress', () => {
  it('prints a plain line every interval when not on a terminal: size, percent, rate, ETA', () => {
    const { stream, writes } = fakeOutput(false);
    let clock = 0;
    const progress = byteProgress({ stream, now: () => clock })('nppes');
    progress.update(100e6, 1.1e9); // a resumed download: 100 MB were already on disk
    clock = 2_000;
    progress.update(200e6, 1.1e9); // within the interval: nothing
    clock = 5_000;
    progress.update(300e6, 1.1e9);
    clock = 10_000;
    progress.update(600e6, 1.1e9);
    progress.done();
    // The rate counts this session's bytes only: 200 MB in 5 s, not 300 MB.
    expect(writes).toEqual(['  nppes, 300 MB of 1.1 GB, 27%, 40 MB/s, ETA 0:20\n', '  nppes, 600 MB of 1.1 GB, 54%, 50 MB/s, ETA 0:10\n']);
  });

  it('redraws one line with a bar on a terminal and clears it when done; silent prints nothing', () => {
    const { stream, writes } = fakeOutput(true);
    let clock = 0;
    const progress = byteProgress({ stream, now: () => clock })('places');
    progress.update(0, 40e6);
    clock = 1_000;
    progress.update(20e6, 40e6);
    progress.done();
    expect(writes).toEqual(['\r  places  20 MB of 40 MB  [##########          ] 50%  20 MB/s  ETA 0:01\x1b[K', '\r\x1b[K']);
    const silent = fakeOutput(true);
    const quiet = byteProgress({ stream: silent.stream, mode: 'silent', now: () => (clock += 10_000) })('x');
    quiet.update(1, 2);
    quiet.done();
    expect(silent.writes).toEqual([]);
  });

  it('leaves out percent and ETA when the size is unknown', () => {
    expect(formatByteProgress({ label: 'acs', bytes: 3e6, total: null, seconds: 2, sessionBytes: 3e6 }, false)).toBe('  acs, 3 MB, 2 MB/s');
    expect([950, 12_000, 340e6, 1.234e9].map(formatBytes)).toEqual(['950 B', '12 kB', '340 MB', '1.2 GB']);
  });
});

describe('fetch building blocks', () => {
  it('reads Content-Range', () => {
    expect(parseContentRange('bytes 100-199/1000')).toEqual({ start: 100, end: 199, total: 1000 });
    expect(parseContentRange('bytes */1000')).toEqual({ start: -1, end: -1, total: 1000 });
    expect(parseContentRange('bytes 0-9/*')).toEqual({ start: 0, end: 9, total: null });
    expect(parseContentRange('items 0-9/10')).toBeNull();
    expect(parseContentRange(null)).toBeNull();
  });

  it('finds the links of a page and values in JSON', () => {
    expect(pageLinks(`<a href="./a.zip">A</a><A HREF='/b?x=1&amp;y=2'>B</A><a href=c.csv>C</a>`)).toEqual([
      './a.zip',
      '/b?x=1&y=2',
      'c.csv',
    ]);
    expect(jsonPath({ distribution: [{ data: { downloadURL: 'u' } }] }, 'distribution.0.data.downloadURL')).toBe('u');
    expect(jsonPath({ a: 1 }, 'a.b')).toBeUndefined();
  });

  it('splits a header line as the build will: quoted NPPES names, tab-separated Gazetteer, pipes', () => {
    expect(splitHeader('"NPI","Entity Type Code","Provider Name, Legal"')).toEqual(['NPI', 'Entity Type Code', 'Provider Name, Legal']);
    expect(splitHeader('GEOID\tALAND\tINTPTLONG   ')).toEqual(['GEOID', 'ALAND', 'INTPTLONG   ']);
    expect(splitHeader('OID_ZCTA5_20|GEOID_ZCTA5_20')).toEqual(['OID_ZCTA5_20', 'GEOID_ZCTA5_20']);
  });

  it('names a download after its address, never outside its folder', () => {
    expect(safeName('https://x.gov/a/b/Hospital_General_Information.csv?x=1', 'f')).toBe('Hospital_General_Information.csv');
    expect(safeName('https://x.gov/a/x%2F..%2F..%2Fevil.csv', 'f')).toBe('evil.csv');
    expect(safeName('https://x.gov/a/..%2F.hidden', 'f')).toBe('hidden');
    expect(safeName('https://x.gov/', 'fallback.download')).toBe('fallback.download');
  });

  it('expands $VAR references from the environment and reports the unset ones', () => {
    expect(expandEnv(`k=${VAR('A')}&t=${VAR('B')}`, { A: '1' })).toEqual({ text: 'k=1&t=', missing: ['B'] });
  });
});

describe('the source list', () => {
  it('the committed list loads: known layouts, valid rules, every environment variable declared with where to get it', () => {
    const list = loadSources(COMMITTED, LAYOUT_NAMES);
    expect(list.sources.map((s) => s.key)).toContain('nppes');
    // Every layout the build reads is covered by a source (downloaded, supplied by hand, or a stand-in).
    expect(new Set(list.sources.map((s) => s.layout))).toEqual(new Set([...LAYOUT_NAMES].filter((name) => name !== 'nppes_flat')));
    for (const source of list.sources) {
      expect(source.url || source.discover || source.manual || source.fallback, source.key).toBeTruthy();
      if (!source.verified) expect(source.note, `${source.key} is unverified: its note must say why`).not.toBe('');
      expect(source.sha256, 'no publisher states a checksum for these files: never invent one').toBeUndefined();
    }
  });

  it('every fallback names sources of the bundled extract manifest (raw/manifests/public.json), when it is in this checkout', () => {
    const bundle = path.join(PACKAGE_ROOT, 'raw/manifests/public.json');
    if (!existsSync(bundle)) {
      console.warn('raw/manifests/public.json is not in this checkout (branch public-bundle): fallback keys not checked');
      return;
    }
    const keys = Object.keys(JSON.parse(readFileSync(bundle, 'utf8')).sources);
    for (const source of loadSources(COMMITTED, LAYOUT_NAMES).sources) {
      for (const key of source.fallback?.keys ?? []) expect(keys, `${source.key} falls back to ${key}`).toContain(key);
    }
  });

  it('a broken entry names the key to fix', () => {
    const dir = tempDir();
    const file = path.join(dir, 'sources.json');
    const base = { layout: 'nucc_taxonomy', vintage: 'v', publisher: 'p', source_url: 'https://x', licence: 'l', url: 'https://x/a.csv' };
    const cases: Array<[unknown, RegExp]> = [
      [{ ...base, layout: 'nope' }, /"sources\.nucc\.layout": unknown layout "nope"; known layouts: acs_zcta, /],
      [
        { ...base, url: `https://x/?key=${VAR('SECRET')}` },
        /"sources\.nucc\.env": declare SECRET \(used as \$\{SECRET\}\) with where to get it/,
      ],
      [
        { ...base, url: undefined, discover: { listing: 'https://x', pattern: '(' } },
        /"sources\.nucc\.discover\.pattern": not a valid regular expression/,
      ],
      [{ ...base, sha256: 'abc' }, /"sources\.nucc\.sha256": expected 64 hexadecimal digits/],
      [{ ...base, url: undefined }, /"sources\.nucc": give "url" or "discover" \(a file to download\), "manual"/],
      [
        { ...base, manual: { path: '../elsewhere.csv', instructions: 'x' } },
        /"sources\.nucc\.manual\.path": expected a path inside the output folder/,
      ],
      [{ ...base, unpack: { json_records: 'data' } }, /"sources\.nucc\.unpack": expected \{ "zip_member": REGEX \} or \{ "json_records"/],
    ];
    for (const [spec, message] of cases) {
      writeFileSync(file, JSON.stringify({ sources: { nucc: spec } }));
      expect(() => loadSources(file, LAYOUT_NAMES)).toThrow(message);
    }
  });
});

// Maintainer script: cuts the real public files into the compact bundle in raw/public.
//   node bin/run-ts.js producers/bundle/make-bundle.ts [--from ../shared/data] [--out raw/public]
//     [--manifest raw/manifests/shared-data.json] [--public-manifest raw/manifests/public.json]
// (or, compiled by `npm run build`, node dist/producers/bundle/make-bundle.js with the same options). Defaults are
// named from the package root, so either runs from any folder.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { PACKAGE_ROOT } from '../../core/package.ts';
import { makeBundle } from './bundle.ts';

const repo = PACKAGE_ROOT;
const { values } = parseArgs({
  options: {
    from: { type: 'string' },
    out: { type: 'string', default: path.join(repo, 'raw/public') },
    manifest: { type: 'string', default: path.join(repo, 'raw/manifests/shared-data.json') },
    'public-manifest': { type: 'string', default: path.join(repo, 'raw/manifests/public.json') },
  },
});

const started = Date.now();
console.log(`cutting the files of ${values.manifest} into ${values.out}:`);
await makeBundle({
  manifest: values.manifest!,
  from: values.from,
  out: values.out!,
  publicManifest: values['public-manifest']!,
  log: (line) => console.log(line),
});
console.log(`done in ${((Date.now() - started) / 1000).toFixed(1)} s; wrote ${values['public-manifest']}`);

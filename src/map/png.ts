import { createRequire } from 'node:module';
import path from 'node:path';
import { Resvg } from '@resvg/resvg-js';

const require = createRequire(import.meta.url);

/**
 * The fonts the PNG is drawn with: DejaVu Sans from the dejavu-fonts-ttf package (Bitstream Vera licence, free
 * to redistribute), so text renders the same on a machine with no fonts at all (a container, CI).
 */
function fontFiles(): string[] {
  const folder = path.join(path.dirname(require.resolve('dejavu-fonts-ttf/package.json')), 'ttf');
  return [path.join(folder, 'DejaVuSans.ttf'), path.join(folder, 'DejaVuSans-Bold.ttf')];
}

/**
 * The SVG of `hcas map` as a PNG, rendered by resvg (a Rust SVG renderer shipped prebuilt in its npm
 * package) with the bundled fonts only, never the system's: the same SVG gives the same bytes.
 */
export function svgToPng(svg: string): Buffer {
  const rendered = new Resvg(svg, {
    font: { fontFiles: fontFiles(), loadSystemFonts: false, defaultFontFamily: 'DejaVu Sans' },
    background: '#ffffff',
  }).render();
  return rendered.asPng();
}

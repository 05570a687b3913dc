/**
 * Colour-vision deficiency simulation (Machado, Oliveira and Fernandes 2009, severity 1.0, in linear RGB) and
 * CIELAB distance: how far apart two colours stay for a reader with protanopia, deuteranopia or tritanopia.
 */
export const DEFICIENCIES = {
  protanopia: [
    [0.152286, 1.052583, -0.204868],
    [0.114503, 0.786281, 0.099216],
    [-0.003882, -0.048116, 1.051998],
  ],
  deuteranopia: [
    [0.367322, 0.860646, -0.227968],
    [0.280085, 0.672501, 0.047413],
    [-0.01182, 0.04294, 0.968881],
  ],
  tritanopia: [
    [1.255528, -0.076749, -0.178779],
    [-0.078411, 0.930809, 0.147602],
    [0.004733, 0.691367, 0.3039],
  ],
} as const;

export type Deficiency = keyof typeof DEFICIENCIES | 'none';

const toLinear = (channel: number) => (channel <= 0.04045 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4);

/** A #rrggbb colour as linear RGB, as seen with a deficiency. */
export function seen(hex: string, deficiency: Deficiency): [number, number, number] {
  const rgb = [1, 3, 5].map((i) => toLinear(Number.parseInt(hex.slice(i, i + 2), 16) / 255));
  if (deficiency === 'none') return rgb as [number, number, number];
  return DEFICIENCIES[deficiency].map((row) => Math.min(1, Math.max(0, row[0] * rgb[0] + row[1] * rgb[1] + row[2] * rgb[2]))) as [
    number,
    number,
    number,
  ];
}

/** CIELAB (D65) of linear RGB. */
export function lab([r, g, b]: readonly number[]): [number, number, number] {
  const x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
  const y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  const z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
  const f = (t: number) => (t > 216 / 24389 ? Math.cbrt(t) : ((24389 / 27) * t + 16) / 116);
  return [116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))];
}

/** The CIE76 distance of two colours as seen with a deficiency (about 2.3 is just noticeable side by side). */
export function distance(a: string, b: string, deficiency: Deficiency): number {
  const [p, q] = [lab(seen(a, deficiency)), lab(seen(b, deficiency))];
  return Math.hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]);
}

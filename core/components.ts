/**
 * The four components of every score (docs/METHODOLOGY.md), in the order answers, tables, the map and reports
 * show them; each is a 0-100 column `COMPONENT_score` of `health_scores` and a field of the same name in score
 * records. Which scoring constants move which component is written beside the constants
 * (`pipeline/config/scoring.ts`, read by `hcas diff`).
 */
export const COMPONENTS = ['people', 'provider', 'hospital', 'travel'] as const;
export type Component = (typeof COMPONENTS)[number];

/** A component's column and record field: `people_score`. */
export function componentColumn<C extends Component>(component: C): `${C}_score` {
  return `${component}_score`;
}

/** An object with one value per component, made by `make` in the components' order. */
export function perComponent<T>(make: (component: Component) => T): Record<Component, T> {
  return Object.fromEntries(COMPONENTS.map((c) => [c, make(c)])) as Record<Component, T>;
}

/** The components' columns in their order: `people_score, provider_score, hospital_score, travel_score`. */
export const COMPONENT_COLUMNS = COMPONENTS.map(componentColumn);

/**
 * The components a score may lack (null): the provider component, where the build publishes none or no source
 * counts primary care in the ZIP (docs/api.md, "Data quality"). The others are always scored.
 */
export const NULLABLE_COMPONENTS = ['provider'] as const satisfies readonly Component[];
export type NullableComponent = (typeof NULLABLE_COMPONENTS)[number];
export const isNullable = (component: Component): component is NullableComponent =>
  (NULLABLE_COMPONENTS as readonly Component[]).includes(component);

/** What a change of a score can be traced to (`hcas diff`): a component, the composite (its weights), or only the band. */
export type ScorePart = Component | 'composite' | 'band';
/** Every part, components first. */
export const SCORE_PARTS: readonly ScorePart[] = [...COMPONENTS, 'composite', 'band'];

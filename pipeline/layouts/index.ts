import { driveTimes, sviZcta } from './access.ts';
import { acsZcta, gazetteerZcta } from './census.ts';
import { clinicianCounts } from './clinician-counts.ts';
import { countyCbsa, countyUrbanRural, zctaCounty, zipCity, zipCounty, zipRuca, zipZcta } from './crosswalks.ts';
import { covidcaremapHospitals, cmsHospitals, hifldHospitals, hrsaSites } from './facilities.ts';
import { placesZcta } from './places.ts';
import { tractPopulationCentre, zipResidentsPoint } from './residents.ts';
import { doctorsClinicians, nppes, nppesFlat, nuccTaxonomy } from './providers.ts';
import type { Layout } from './types.ts';

/**
 * Every layout a manifest may name, by name, in the order ingest reads them: the Gazetteer and the crosswalks
 * before the files mapped through them, the NUCC code set before the provider files whose specialties it names.
 * A new layout goes here once, at its place in that order (and gets its filing in ingest/ingested.ts).
 */
export const LAYOUTS: ReadonlyMap<string, Layout<unknown>> = new Map(
  [
    gazetteerZcta,
    zipZcta,
    zipCity,
    zctaCounty,
    zipCounty,
    zipResidentsPoint,
    countyCbsa,
    countyUrbanRural,
    zipRuca,
    acsZcta,
    placesZcta,
    driveTimes,
    sviZcta,
    tractPopulationCentre,
    clinicianCounts,
    nuccTaxonomy,
    cmsHospitals,
    hifldHospitals,
    covidcaremapHospitals,
    hrsaSites,
    nppes,
    nppesFlat,
    doctorsClinicians,
  ].map((layout) => [layout.name, layout as Layout<unknown>]),
);

/** The layouts' names in reading order. */
export const LAYOUT_ORDER: readonly string[] = [...LAYOUTS.keys()];

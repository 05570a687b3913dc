import { driveTimes, sviZcta } from './access.ts';
import { acsZcta, gazetteerZcta } from './census.ts';
import { countyCbsa, countyUrbanRural, zctaCounty, zipCity, zipCounty, zipRuca, zipZcta } from './crosswalks.ts';
import { covidcaremapHospitals, cmsHospitals, hifldHospitals, hrsaSites } from './facilities.ts';
import { placesZcta } from './places.ts';
import { tractPopulationCentre, zipResidentsPoint } from './residents.ts';
import { doctorsClinicians, nppes, nppesFlat, nuccTaxonomy } from './providers.ts';
import type { Layout } from './types.ts';

/** Every layout a manifest may name, by name. */
export const LAYOUTS: ReadonlyMap<string, Layout<unknown>> = new Map(
  [
    gazetteerZcta,
    acsZcta,
    zipZcta,
    zipCity,
    zctaCounty,
    zipCounty,
    zipResidentsPoint,
    countyCbsa,
    countyUrbanRural,
    zipRuca,
    nppes,
    nppesFlat,
    doctorsClinicians,
    nuccTaxonomy,
    cmsHospitals,
    hifldHospitals,
    covidcaremapHospitals,
    hrsaSites,
    placesZcta,
    driveTimes,
    sviZcta,
    tractPopulationCentre,
  ].map((layout) => [layout.name, layout as Layout<unknown>]),
);

/**
 * Real reference codes for the 50 states, DC, Puerto Rico and the island areas: what the 2020 ZCTAs cover.
 * FIPS codes, CMS certification-number state codes (SSA codes, used as the first two characters of a
 * hospital's CCN) and a few real telephone area codes per state, so synthetic rows look plausible.
 */

/** Reference data of one state or state-equivalent. */
export interface StateInfo {
  /** USPS abbreviation, e.g. "NY". */
  abbr: string;
  /** Two-digit FIPS code, e.g. "36". */
  fips: string;
  /** Official name, e.g. "New York". */
  name: string;
  /** Two-digit CMS (SSA) state code used as the CCN prefix, e.g. "33". */
  ccn: string;
  /** Real telephone area codes in the state. */
  areaCodes: readonly string[];
}

// abbr, FIPS, name, CCN state code, area codes
const TABLE: readonly [string, string, string, string, string][] = [
  ['AL', '01', 'Alabama', '01', '205 251 256 334'],
  ['AK', '02', 'Alaska', '02', '907'],
  ['AZ', '04', 'Arizona', '03', '480 520 602 623 928'],
  ['AR', '05', 'Arkansas', '04', '479 501 870'],
  [
    'CA',
    '06',
    'California',
    '05',
    '209 213 310 323 408 415 510 530 559 562 619 626 650 661 707 714 760 805 818 831 858 909 916 925 949 951',
  ],
  ['CO', '08', 'Colorado', '06', '303 719 720 970'],
  ['CT', '09', 'Connecticut', '07', '203 860'],
  ['DE', '10', 'Delaware', '08', '302'],
  ['DC', '11', 'District of Columbia', '09', '202'],
  ['FL', '12', 'Florida', '10', '239 305 321 352 386 407 561 727 772 813 850 863 904 941 954'],
  ['GA', '13', 'Georgia', '11', '229 404 478 678 706 770 912'],
  ['HI', '15', 'Hawaii', '12', '808'],
  ['ID', '16', 'Idaho', '13', '208'],
  ['IL', '17', 'Illinois', '14', '217 309 312 618 630 708 773 815 847'],
  ['IN', '18', 'Indiana', '15', '219 260 317 574 765 812'],
  ['IA', '19', 'Iowa', '16', '319 515 563 641 712'],
  ['KS', '20', 'Kansas', '17', '316 620 785 913'],
  ['KY', '21', 'Kentucky', '18', '270 502 606 859'],
  ['LA', '22', 'Louisiana', '19', '225 318 337 504 985'],
  ['ME', '23', 'Maine', '20', '207'],
  ['MD', '24', 'Maryland', '21', '240 301 410 443'],
  ['MA', '25', 'Massachusetts', '22', '413 508 617 781 978'],
  ['MI', '26', 'Michigan', '23', '231 248 269 313 517 586 616 734 810 906 989'],
  ['MN', '27', 'Minnesota', '24', '218 320 507 612 651 763 952'],
  ['MS', '28', 'Mississippi', '25', '228 601 662'],
  ['MO', '29', 'Missouri', '26', '314 417 573 636 660 816'],
  ['MT', '30', 'Montana', '27', '406'],
  ['NE', '31', 'Nebraska', '28', '308 402'],
  ['NV', '32', 'Nevada', '29', '702 775'],
  ['NH', '33', 'New Hampshire', '30', '603'],
  ['NJ', '34', 'New Jersey', '31', '201 609 732 856 908 973'],
  ['NM', '35', 'New Mexico', '32', '505 575'],
  ['NY', '36', 'New York', '33', '212 315 516 518 585 607 631 716 718 845 914'],
  ['NC', '37', 'North Carolina', '34', '252 336 704 828 910 919'],
  ['ND', '38', 'North Dakota', '35', '701'],
  ['OH', '39', 'Ohio', '36', '216 330 419 440 513 614 740 937'],
  ['OK', '40', 'Oklahoma', '37', '405 580 918'],
  ['OR', '41', 'Oregon', '38', '503 541'],
  ['PA', '42', 'Pennsylvania', '39', '215 412 570 610 717 724 814'],
  ['RI', '44', 'Rhode Island', '41', '401'],
  ['SC', '45', 'South Carolina', '42', '803 843 864'],
  ['SD', '46', 'South Dakota', '43', '605'],
  ['TN', '47', 'Tennessee', '44', '423 615 731 865 901 931'],
  ['TX', '48', 'Texas', '45', '210 214 254 281 325 361 409 432 512 713 806 817 830 903 915 936 940 956 972 979'],
  ['UT', '49', 'Utah', '46', '435 801'],
  ['VT', '50', 'Vermont', '47', '802'],
  ['VA', '51', 'Virginia', '49', '276 434 540 703 757 804'],
  ['WA', '53', 'Washington', '50', '206 253 360 425 509'],
  ['WV', '54', 'West Virginia', '51', '304'],
  ['WI', '55', 'Wisconsin', '52', '262 414 608 715 920'],
  ['WY', '56', 'Wyoming', '53', '307'],
  ['PR', '72', 'Puerto Rico', '40', '787 939'],
  // Island areas: they have 2020 ZCTAs (the Gazetteer lists them) but no ACS, PLACES or NCHS data.
  ['AS', '60', 'American Samoa', '64', '684'],
  ['GU', '66', 'Guam', '65', '671'],
  ['MP', '69', 'Commonwealth of the Northern Mariana Islands', '66', '670'],
  ['VI', '78', 'United States Virgin Islands', '48', '340'],
];

/** Island areas, outside ACS, CDC PLACES, OMB metro areas and the NCHS urban-rural scheme. */
export const ISLAND_AREAS: ReadonlySet<string> = new Set(['AS', 'GU', 'MP', 'VI']);

/** States by USPS abbreviation. */
export const STATES: ReadonlyMap<string, StateInfo> = new Map(
  TABLE.map(([abbr, fips, name, ccn, codes]) => [abbr, { abbr, fips, name, ccn, areaCodes: codes.split(' ') }]),
);

/** The StateInfo of an abbreviation known to be in {@link STATES}. */
export function stateInfo(abbr: string): StateInfo {
  const info = STATES.get(abbr);
  if (!info) throw new Error(`unknown state ${abbr}`);
  return info;
}

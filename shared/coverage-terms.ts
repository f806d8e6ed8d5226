/**
 * The normalised values of an extraction's coverage details (spec 4.4 "coverage details"), without zod:
 * the language packs and the extraction threads import these lists, and the threads stay free of zod.
 * Each list is the one list: the packs' vocabularies are Records over it, so a new value is a gap the
 * compiler names in every language.
 */

/** Motor cover level, from least to most cover (Haftpflicht < Teilkasko < Vollkasko; tiers < tiers étendu < tous risques). */
export const MOTOR_COVER_LEVELS = ['third_party', 'third_party_fire_theft', 'comprehensive'] as const;
export type TMotorCoverLevel = (typeof MOTOR_COVER_LEVELS)[number];

/** Travel policy kind: one trip, or every trip within a year (annual multi-trip, Jahresvertrag, multi-voyages). */
export const TRIP_TYPES = ['single_trip', 'annual_multi_trip'] as const;
export type TTripType = (typeof TRIP_TYPES)[number];

/** Travel area, from narrowest to widest: the home country only, Europe, the world without the USA and Canada, the world. */
export const TRAVEL_REGIONS = ['domestic', 'europe', 'worldwide_excluding_usa', 'worldwide'] as const;
export type TTravelRegion = (typeof TRAVEL_REGIONS)[number];

/** The coverage details an extraction may return, each with its own confidence. */
export const COVERAGE_FIELDS = ['motor_cover', 'trip_type', 'region', 'health_plan'] as const;
export type TCoverageField = (typeof COVERAGE_FIELDS)[number];

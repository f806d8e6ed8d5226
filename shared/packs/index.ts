/** Country profiles and language packs: what varies by country or language, in one place each. */
export * from './types.js';
export * from './countries/index.js';
export * from './languages/index.js';
export * from './input-words.js';
export { toDigits, toLetters } from './lookalikes.js';
export { INSURANCE_TYPES, type TInsuranceType } from '../insurance-types.js';

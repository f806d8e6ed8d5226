/** Insurer register: name normalisation, the in-memory matcher, file importers, seeding and online registers. */
export { normaliseInsurerName, nameTokens } from './normalise.js';
export { InsurerIndex, toInsurerObject, type InsurerMatch } from './matcher.js';
export {
  REGISTER_FORMATS,
  isRegisterFormat,
  parseRegisterFile,
  parseEiopaRegisterCsv,
  parseFcaFirmRecords,
  parseDeVuCsv,
  parseFrAcamCsv,
  parseUkFrnCsv,
  parseDemoInsurers,
  EIOPA_REQUIRED_COLUMNS,
  type RegisterFormat,
  type RegisterFileExtra,
} from './importers/index.js';
export { seedRegister, SHIPPED_REGISTER_FILES } from './seed.js';
export { fcaRegister, fcaRegisterFromConfig, type OnlineRegister, type OnlineRegisterAnswer, type FirmKind } from './online/index.js';

/** Public surface of the verification engine. */
export { verifyPolicy, REGISTER_SOURCE, type EngineDeps, type EngineOutcome, type EngineResult } from './engine.js';
export { normalisePolicyNumber } from './normalise.js';
export { FORMAT_RULES, checkFormat, formatRule } from './patterns.js';
export { score, VERIFIED_THRESHOLD, type Signals } from './score.js';
export { ReferenceDataCache, type ReferenceData } from './reference-data.js';
export { buildRegistryChain, type RegistryChain } from './registry/index.js';

/** Online insurer registers: sources asked at verification time, behind one interface. */
export {
  fcaRegister,
  fcaRegisterFromConfig,
  type FcaRegisterDeps,
  type FcaRegisterOptions,
  type OnlineRegister,
  type OnlineRegisterAnswer,
} from './fca-register.js';
export { firmKindFromPermissions, type FirmKind } from './firm-kind.js';

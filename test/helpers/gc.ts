/** A full garbage collection on demand, as `node --expose-gc` gives: the flag set now, the function taken from a new context. */
import v8 from 'node:v8';
import vm from 'node:vm';

v8.setFlagsFromString('--expose-gc');
export const gc = vm.runInNewContext('gc') as () => void;

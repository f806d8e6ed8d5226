// Piscina worker entry when running from TypeScript sources (tsx, vitest): registers tsx's loader in
// this thread, then loads the real worker. A bundle points piscina at its compiled worker instead.
import { register } from 'tsx/esm/api';

register();
const mod = await import('./thread-worker.ts');
export default mod.default;

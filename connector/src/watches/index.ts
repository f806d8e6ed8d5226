/** Watches (docs/monitoring.md): policies re-verified on a cadence, reporting what changed. */
export { createWatch, type CreateWatchDeps } from './create.js';
export { listWatches, getWatch, pauseWatch, resumeWatch, deleteWatch } from './manage.js';
export { WatchRunner, type WatchRunnerOptions } from './runner.js';
export { WatchMailSender } from './mail-sender.js';
export { createRecheckScanner, scanForRechecks } from './register-rechecks.js';
export { runWatch } from './run.js';

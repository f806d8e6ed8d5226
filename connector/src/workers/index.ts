/** Background workers: the interface, the loops they run on, leases and their renewal. */
export { startInOrder, stopInReverse, type Worker } from './worker.js';
export { PollingLoops, periodic, type LoopOptions } from './polling-loops.js';
export { LeasedLoop, type LeasedLoopOptions, type Hold, type LeasedUnit, type LeaseOne, type LeaseWindow } from './leased-loop.js';
export { whileRenewing } from './lease-renewal.js';
export { KeyTurns } from './key-turns.js';

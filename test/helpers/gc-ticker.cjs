// Preloaded by `npm run test:gc` into every Node process of the run (NODE_OPTIONS reaches the
// connector children too): a full garbage collection every 250 ms. Anything that holds its only
// reference to a timer, a signal or a pending promise weakly fails under it every time instead of
// now and then (the registry deadline lost to AbortSignal.any, nodejs/node#57736).
if (typeof globalThis.gc === 'function') setInterval(() => globalThis.gc(), 250).unref();

/** Prometheus metrics and readiness (docs/metrics.md): what the composition root, app.ts and the meta routes use. */
export { createMetrics, METRICS_OFF, type Metrics } from './registry.js';
export type { Upstream } from './definitions.js';
export { watchExtractor, type ExtractionHealth } from './extraction.js';
export { metricsEndpoint, mayScrape, isLoopback, type MetricsAccess } from './exposure.js';
export { checkReadiness, extractionCheck, redisCheck, storeCheck, type ReadinessChecks } from './readiness.js';
export { NO_METRICS, type MetricsSink } from './sink.js';

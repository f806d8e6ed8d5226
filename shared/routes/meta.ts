/** The health and readiness checks and the OpenAPI document. (GET /metrics is mounted beside the table: connector/src/app.ts.) */
import { z } from 'zod';
import { ZHealthSchema } from '../account.js';
import { ZReadinessSchema } from '../readiness.js';
import { ok, refused, type RouteContract } from './types.js';

export const metaRoutes = {
  health: {
    method: 'get',
    path: '/healthz',
    access: 'open',
    summary: 'Liveness and store check',
    responses: { 200: ok(ZHealthSchema, 'Service and store are up'), 503: refused('Store unavailable', { retryAfter: true }) },
  },
  ready: {
    method: 'get',
    path: '/readyz',
    access: 'open',
    summary: 'Readiness: the store, Redis when configured, the extraction process when extraction is on',
    description:
      'For a load balancer or orchestrator deciding whether to send this instance work. Each check is named with its outcome ' +
      '(ok, failed, off when not configured) and how long it took; 503 when one failed. Liveness is GET /healthz.',
    responses: {
      200: ok(ZReadinessSchema, 'Every configured check passed'),
      503: { description: 'A check failed; the body names it', schema: ZReadinessSchema, retryAfter: true },
    },
  },
  openapi: {
    method: 'get',
    path: '/api/v1/openapi.json',
    access: 'ip',
    summary: 'This document',
    responses: { 200: ok(z.object({}).passthrough(), 'OpenAPI 3.1 document') },
  },
} satisfies Record<string, RouteContract>;

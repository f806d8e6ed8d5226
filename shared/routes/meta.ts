/** The health check and the OpenAPI document. */
import { z } from 'zod';
import { ZHealthSchema } from '../account.js';
import { ok, refused, type RouteContract } from './types.js';

export const metaRoutes = {
  health: {
    method: 'get',
    path: '/healthz',
    access: 'open',
    summary: 'Liveness and store check',
    responses: { 200: ok(ZHealthSchema, 'Service and store are up'), 503: refused('Store unavailable', { retryAfter: true }) },
  },
  openapi: {
    method: 'get',
    path: '/api/v1/openapi.json',
    access: 'ip',
    summary: 'This document',
    responses: { 200: ok(z.object({}).passthrough(), 'OpenAPI 3.1 document') },
  },
} satisfies Record<string, RouteContract>;

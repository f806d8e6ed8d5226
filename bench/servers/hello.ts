/** The bare Express app benches compare against: one `GET /hello` route, Express's defaults. */
import express from 'express';

export function helloApp(): express.Express {
  const app = express();
  app.get('/hello', (_req, res) => {
    res.json({ hello: 'world' });
  });
  return app;
}

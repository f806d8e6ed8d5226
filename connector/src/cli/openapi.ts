/** npm run openapi: prints the generated OpenAPI document (e.g. to commit a snapshot for clients). */
import { buildOpenApiDocument } from '../../../shared/openapi.js';
import { VERSION } from '../routes/meta.js';

process.stdout.write(`${JSON.stringify(buildOpenApiDocument({ version: VERSION }), null, 2)}\n`);

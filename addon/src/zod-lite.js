// Build-time stand-in for `zod` in the Apps Script bundle (see scripts/build-addon.mjs): the same
// zod v4 schema code the contract uses, without the 40 locales and the JSON Schema converters the
// add-on never calls. Types still come from the real package.
import * as schemas from '../../node_modules/zod/v4/classic/schemas.js';
import * as iso from '../../node_modules/zod/v4/classic/iso.js';
import { config } from '../../node_modules/zod/v4/core/index.js';
import en from '../../node_modules/zod/v4/locales/en.js';

config(en());
export const z = { ...schemas, iso };

/**
 * Reads a multipart/form-data upload with busboy, never holding more than `maxFileBytes` of the
 * file: a larger file is cut off at the limit and refused with 413. One file field, a few small
 * text fields; anything else is refused. The body arrives uncompressed (app.ts refuses a
 * Content-Encoding on multipart routes: busboy inflates nothing).
 *
 * Every way the body can go wrong (a part cut off before its boundary, a malformed header, the
 * client leaving mid-upload) settles as a 400: busboy reports a truncated form both on itself and
 * on the open file stream, and an 'error' event nobody listens to would end the process.
 *
 * The bytes the client sends are covered by the request's share of the memory budget
 * (http/body-budget.ts): the declared length up front (as far as the form may take), then what
 * arrives beyond it; a refusal settles the upload like any other failure.
 */
import busboy from 'busboy';
import type { Request } from 'express';
import { AppError } from '../errors.js';
import { bodyLeaseOf } from './body-budget.js';

export interface Upload {
  file: { field: string; filename: string; mimeType: string; content: Buffer } | null;
  fields: Record<string, string>;
}

/** Bytes a form holds beyond its file: the text fields busboy takes (fieldSize 4096 each) and the part headers and boundaries. */
const FORM_OVERHEAD_BYTES = 64 * 1024;

export function readUpload(
  req: Request,
  opts: { fileField: string; maxFileBytes: number; textFields: readonly string[] },
): Promise<Upload> {
  if (!req.is('multipart/form-data')) {
    return Promise.reject(
      new AppError('unsupported_media_type', `Send the document as multipart/form-data with a "${opts.fileField}" field.`),
    );
  }
  const lease = bodyLeaseOf(req.res);
  // A form larger than this is cut off at the file limit (413) anyway: only this much is ever held.
  const maxBytes = opts.maxFileBytes + FORM_OVERHEAD_BYTES;
  const declared = Number(req.headers['content-length']);
  return new Promise((resolve, reject) => {
    let bb: busboy.Busboy;
    try {
      bb = busboy({
        headers: req.headers,
        // busboy signals a limit when it is reached, not exceeded: one spare byte, so a file of
        // exactly maxFileBytes is accepted (the limit is inclusive, as shared/policy.ts's
        // documentTooLarge says), and one spare part (unknown field names are refused by name anyway).
        limits: {
          files: 1,
          fileSize: opts.maxFileBytes + 1,
          fields: opts.textFields.length + 1,
          fieldSize: 4096,
          parts: opts.textFields.length + 2,
        },
      });
    } catch (err) {
      reject(new AppError('invalid_request', `Malformed multipart request: ${(err as Error).message}`));
      return;
    }
    const upload: Upload = { file: null, fields: {} };
    let failure: AppError | null = null;
    const fail = (e: AppError) => {
      failure ??= e;
    };
    let settled = false;
    const settle = (err: AppError | null) => {
      if (settled) return;
      settled = true;
      req.off('error', onRequestGone).off('close', onRequestGone).off('data', onBytes);
      if (!err) return resolve(upload);
      // Stop parsing and read off what the client still sends, so the 4xx can be answered on a
      // connection that stays usable (body-parser does the same).
      req.unpipe(bb);
      bb.destroy();
      req.resume();
      reject(err);
    };
    const malformed = (err: Error) => new AppError('invalid_request', `Malformed multipart request: ${err.message}`);
    // The request also closes after a complete body, possibly before busboy's own 'close'; only an
    // incomplete one means the client went away mid-upload.
    const onRequestGone = () => {
      if (!req.complete) settle(new AppError('invalid_request', 'The upload was aborted by the client before the form was complete.'));
    };
    req.on('error', onRequestGone).on('close', onRequestGone);
    /** Covers `bytes` of the form in the budget, or settles with its refusal; false when refused. */
    const covered = (bytes: number): boolean => {
      try {
        lease?.cover(Math.min(bytes, maxBytes));
        return true;
      } catch (err) {
        settle(err as AppError);
        return false;
      }
    };
    let received = 0;
    const onBytes = (chunk: Buffer) => {
      received += chunk.length;
      covered(received);
    };

    bb.on('file', (field, stream, info) => {
      // Destroyed with "Unexpected end of file" when the form ends inside this part.
      stream.on('error', (err: Error) => fail(malformed(err)));
      if (field !== opts.fileField) {
        fail(new AppError('invalid_request', `Unexpected file field "${field}"; send the PDF as "${opts.fileField}".`));
        stream.resume();
        return;
      }
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('limit', () =>
        fail(new AppError('payload_too_large', `The file is larger than ${Math.round(opts.maxFileBytes / 1048576)} MB.`)),
      );
      stream.on('close', () => {
        upload.file = { field, filename: info.filename ?? '', mimeType: info.mimeType, content: Buffer.concat(chunks) };
      });
    });
    bb.on('field', (name, value, info) => {
      if (!opts.textFields.includes(name))
        fail(new AppError('invalid_request', `Unknown field "${name}". Accepted: ${[opts.fileField, ...opts.textFields].join(', ')}.`));
      else if (info.valueTruncated) fail(new AppError('invalid_request', `Field "${name}" is too long.`));
      else upload.fields[name] = value;
    });
    for (const event of ['filesLimit', 'fieldsLimit', 'partsLimit'] as const) {
      bb.on(event, () =>
        fail(
          new AppError('invalid_request', `Too many parts: send one "${opts.fileField}" file and at most ${opts.textFields.join(', ')}.`),
        ),
      );
    }
    bb.on('error', (err: Error) => settle(failure ?? malformed(err)));
    bb.on('close', () => settle(failure));
    if (Number.isSafeInteger(declared) && !covered(declared)) return;
    // Counted beside busboy, in the same tick as the pipe, so no chunk passes uncounted.
    req.on('data', onBytes);
    req.pipe(bb);
  });
}

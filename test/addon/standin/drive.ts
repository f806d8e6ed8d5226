/**
 * Google Drive for the add-on: the Drive REST API v3 (files.get metadata and alt=media), called
 * with the token of ScriptApp.getOAuthToken(), and DriveApp. Under the drive.file scope an app
 * sees only the files the user opened with it (picked in Google Picker with the app's id, or
 * created by it); other files answer 404 "File not found", as Drive does for files a token can't see.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { RawReq, RawRes } from './sync-http.js';
import { GasError, type Guard } from './runtime.js';

const AUTH = 'https://www.googleapis.com/auth/';
export const DRIVE_API = 'https://www.googleapis.com/drive/v3/files/';

export interface DriveFileSpec {
  /** A file on disk to serve (its bytes), or the bytes themselves. */
  path?: string;
  bytes?: Uint8Array;
  name?: string;
  mimeType?: string;
  /** Users who can open the file in Drive (default: everyone). */
  readers?: string[];
}

export interface TokenInfo {
  user: string;
  scopes: string[];
}

export class DriveStandin {
  files = new Map<string, Required<Pick<DriveFileSpec, 'name' | 'mimeType'>> & { bytes: () => Uint8Array; readers: string[] | null }>();
  /** drive.file grants: `${user} ${fileId}`. */
  grants = new Set<string>();
  tokens = new Map<string, TokenInfo>();
  calls: string[] = [];

  constructor(
    specs: Record<string, DriveFileSpec>,
    /** The Cloud project number the add-on's Picker must name with setAppId for picks to grant drive.file access. */
    readonly appId: string,
  ) {
    for (const [id, s] of Object.entries(specs)) {
      const name = s.name ?? (s.path ? path.basename(s.path) : id);
      this.files.set(id, {
        name,
        mimeType: s.mimeType ?? (name.endsWith('.pdf') ? 'application/pdf' : 'application/octet-stream'),
        bytes: () => s.bytes ?? new Uint8Array(fs.readFileSync(s.path!)),
        readers: s.readers ?? null,
      });
    }
  }

  canRead(user: string, id: string): boolean {
    const f = this.files.get(id);
    return !!f && (f.readers === null || f.readers.includes(user));
  }
  /** What Google Picker does for a pick made with setAppId(the project's number) under drive.file. */
  grantPick(user: string, id: string, appId: string | null): boolean {
    if (appId !== this.appId || !this.canRead(user, id)) return false;
    this.grants.add(`${user} ${id}`);
    return true;
  }
  /** The files the user sees in the Picker (by type). */
  listFor(user: string, mimeType?: string) {
    return (
      [...this.files]
        // The Picker's setMimeTypes takes a comma-separated list.
        .filter(([id, f]) => this.canRead(user, id) && (!mimeType || mimeType.split(',').includes(f.mimeType)))
        .map(([id, f]) => ({ id, name: f.name, mimeType: f.mimeType, sizeBytes: f.bytes().length }))
    );
  }

  private visible(t: TokenInfo, id: string): boolean {
    if (!this.canRead(t.user, id)) return false;
    if (t.scopes.some((s) => s === `${AUTH}drive` || s === `${AUTH}drive.readonly`)) return true;
    return t.scopes.includes(`${AUTH}drive.file`) && this.grants.has(`${t.user} ${id}`);
  }

  /** The REST API: GET files/{id}?fields=… and GET files/{id}?alt=media. */
  handle(req: RawReq): RawRes {
    const json = (status: number, body: unknown): RawRes => ({
      status,
      headers: { 'content-type': 'application/json; charset=UTF-8' },
      body: new Uint8Array(Buffer.from(JSON.stringify(body))),
      ms: 0,
    });
    const u = new URL(req.url);
    this.calls.push(`${req.method} ${u.pathname}${u.search}`);
    const id = decodeURIComponent(u.pathname.replace('/drive/v3/files/', ''));
    const auth = Object.entries(req.headers).find(([k]) => k.toLowerCase() === 'authorization')?.[1] ?? '';
    const token = this.tokens.get(auth.replace(/^Bearer /, ''));
    if (!token)
      return json(401, {
        error: {
          code: 401,
          message: 'Request had invalid authentication credentials. Expected OAuth 2 access token.',
          status: 'UNAUTHENTICATED',
        },
      });
    if (!token.scopes.some((s) => [`${AUTH}drive`, `${AUTH}drive.readonly`, `${AUTH}drive.file`].includes(s))) {
      return json(403, {
        error: { code: 403, message: 'Request had insufficient authentication scopes.', errors: [{ reason: 'insufficientPermissions' }] },
      });
    }
    if (req.method !== 'GET' || !id || id.includes('/')) return json(404, { error: { code: 404, message: 'Not Found' } });
    if (!this.visible(token, id)) {
      const message = `File not found: ${id}.`;
      return json(404, {
        error: {
          code: 404,
          message,
          errors: [{ message, domain: 'global', reason: 'notFound', location: 'fileId', locationType: 'parameter' }],
        },
      });
    }
    const f = this.files.get(id)!;
    if (u.searchParams.get('alt') === 'media') return { status: 200, headers: { 'content-type': f.mimeType }, body: f.bytes(), ms: 0 };
    const all: Record<string, unknown> = { kind: 'drive#file', id, name: f.name, mimeType: f.mimeType, size: String(f.bytes().length) };
    const fields = u.searchParams.get('fields');
    const pick = fields
      ? Object.fromEntries(
          fields
            .split(',')
            .map((k) => k.trim())
            .filter((k) => k in all)
            .map((k) => [k, all[k]]),
        )
      : { kind: all.kind, id, name: f.name, mimeType: f.mimeType };
    return json(200, pick);
  }

  /** DriveApp.getFileById (reference/drive/drive-app: drive.readonly or drive). */
  driveApp(guard: Guard, blob: (bytes: Uint8Array, type: string, name: string) => unknown) {
    return {
      getFileById: (id: string) => {
        const e = guard.call('DriveApp.getFileById');
        if (!e || !this.canRead(e.user, id))
          throw new GasError(
            `No item with the given ID could be found. Possibly because you have not edited this item or you do not have permission to access it.`,
          );
        const f = this.files.get(id)!;
        return {
          getName: () => (guard.call('File.getName'), f.name),
          getMimeType: () => (guard.call('File.getMimeType'), f.mimeType),
          getSize: () => (guard.call('File.getSize'), f.bytes().length),
          getBlob: () => (guard.call('File.getBlob'), blob(f.bytes(), f.mimeType, f.name)),
        };
      },
    };
  }
}

/**
 * The one wrapper around the Drive API (v3, over UrlFetchApp with the token of
 * ScriptApp.getOAuthToken()). The add-on holds the drive.file scope only, so Drive answers for the
 * files the user picked with Google Picker in this add-on (or that it opened before) and says 404
 * "File not found" for any other: DriveApp needs drive.readonly, a restricted scope.
 */
export const DRIVE_FILES = 'https://www.googleapis.com/drive/v3/files/';

/** Where a person opens the file in Drive (the link each extracted row carries). */
export const driveFileUrl = (id: string): string => `https://drive.google.com/file/d/${encodeURIComponent(id)}/view`;

export interface DriveFile {
  id: string;
  name: string;
  mimeType: string;
  /** Bytes; absent for Google Docs, Sheets… (which have no stored size). */
  size: number | null;
}

export class DriveError extends Error {
  constructor(
    readonly kind: 'not_picked' | 'denied' | 'failed',
    message: string,
  ) {
    super(message);
    this.name = 'DriveError';
  }
}

function get(url: string): GoogleAppsScript.URL_Fetch.HTTPResponse {
  const r = UrlFetchApp.fetch(url, { headers: { Authorization: `Bearer ${ScriptApp.getOAuthToken()}` }, muteHttpExceptions: true });
  const code = r.getResponseCode();
  if (code === 200) return r;
  if (code === 404)
    throw new DriveError(
      'not_picked',
      'Covercheck can open only the files you choose with "Choose from Drive" (it has no access to the rest of your Drive). Choose the file there.',
    );
  if (code === 401 || code === 403)
    throw new DriveError('denied', `Google Drive refused access (${code}). Reload the spreadsheet and try again.`);
  throw new DriveError('failed', `Google Drive answered ${code}. Try again in a minute.`);
}

export function fileMeta(id: string): DriveFile {
  const m = JSON.parse(
    get(`${DRIVE_FILES}${encodeURIComponent(id)}?fields=id,name,mimeType,size&supportsAllDrives=true`).getContentText(),
  ) as { id: string; name: string; mimeType: string; size?: string };
  return { id: m.id, name: m.name, mimeType: m.mimeType, size: m.size === undefined ? null : Number(m.size) };
}

export function fileBlob(f: DriveFile): GoogleAppsScript.Base.Blob {
  return get(`${DRIVE_FILES}${encodeURIComponent(f.id)}?alt=media&supportsAllDrives=true`)
    .getBlob()
    .setName(f.name);
}

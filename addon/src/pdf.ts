/** "Extract from Drive PDF": a Drive file -> the extraction endpoint -> a new row under matching headers. */
import type { TExtractedFields, TJob } from '../../shared/job.js';
import { api } from './connector.js';
import { userConn } from './settings.js';

/** Accepts a Drive file URL (…/d/ID/…, ?id=ID) or a bare ID. */
export function fileIdFrom(input: string): string {
  const s = String(input ?? '').trim();
  const m = /\/d\/([A-Za-z0-9_-]{10,})/.exec(s) ?? /[?&]id=([A-Za-z0-9_-]{10,})/.exec(s) ?? /^([A-Za-z0-9_-]{10,})$/.exec(s);
  if (!m) throw new Error('Paste a Drive file URL (https://drive.google.com/file/d/…) or a file ID.');
  return m[1]!;
}

/** Header words per extracted field (EN/DE/FR), matched on the folded header. */
const FIELD_HEADERS: Record<keyof Omit<TExtractedFields, 'confidence'>, RegExp> = {
  policy_number: /(policy|police|versicherungsschein|vsnr|vertrag|contrat).*(number|no|nr|nummer|numero)|^(vsnr|policy|police)$/,
  insurer: /insurer|provider|versicherer|gesellschaft|assureur|compagnie/,
  insurance_type: /type|typ\b|\bart\b|sparte|genre|produit/,
  start_date: /start|begin|from|von|debut|effet|inception/,
  end_date: /\bend\b|expir|until|bis|fin\b|ablauf|echeance/,
  vehicle_registration: /registration|reg\b|plate|kennzeichen|immatriculation/,
};
const DEFAULT_HEADERS: Record<string, string> = {
  policy_number: 'Policy number',
  insurer: 'Insurer',
  insurance_type: 'Insurance type',
  start_date: 'Start date',
  end_date: 'End date',
  vehicle_registration: 'Vehicle registration',
};

const fold = (s: string) => s.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase().trim();

/** Uploads the file and returns the extraction job id. */
export function submitPdfExtraction(fileRef: string): { jobId: string; fileName: string } {
  const id = fileIdFrom(fileRef);
  let file: GoogleAppsScript.Drive.File;
  try {
    file = DriveApp.getFileById(id);
  } catch {
    throw new Error(`No Drive file ${id} that you can open. Check the link and that it is shared with you.`);
  }
  const blob = file.getBlob();
  if (blob.getContentType() !== 'application/pdf') throw new Error(`${file.getName()} is not a PDF (${blob.getContentType()}).`);
  const accepted = api.extract(userConn(), blob);
  return { jobId: accepted.job_id, fileName: file.getName() };
}

export interface ExtractionView {
  status: TJob['status'];
  fields: TExtractedFields | null;
  row: number | null;
  message: string;
}

/**
 * Polls the job once; when complete, appends the fields as a row on the active sheet under the
 * headers that match them (a header row is written first on an empty sheet; unmatched fields get
 * new columns).
 */
export function pollPdfExtraction(jobId: string): ExtractionView {
  const job = api.job(userConn(), jobId);
  if (job.status === 'pending') return { status: 'pending', fields: null, row: null, message: 'Reading the PDF…' };
  if (job.status === 'failed') return { status: 'failed', fields: null, row: null, message: job.error?.message ?? 'Extraction failed.' };
  const fields = job.result as TExtractedFields;
  const sheet = SpreadsheetApp.getActiveSheet();
  const lastCol = sheet.getLastColumn();
  const headers = lastCol > 0 ? sheet.getRange(1, 1, 1, lastCol).getValues()[0]!.map((v) => fold(String(v ?? ''))) : [];
  const row: (string | number)[] = headers.map(() => '');
  const names = Object.keys(FIELD_HEADERS) as (keyof typeof FIELD_HEADERS)[];
  const newHeaders: string[] = [];
  for (const f of names) {
    const value = fields[f];
    let col = headers.findIndex((h) => h && FIELD_HEADERS[f].test(h));
    if (col < 0) {
      if (value === undefined) continue;
      col = headers.length + newHeaders.length;
      newHeaders.push(DEFAULT_HEADERS[f]!);
    }
    row[col] = value ?? '';
  }
  if (newHeaders.length) sheet.getRange(1, headers.length + 1, 1, newHeaders.length).setValues([newHeaders]);
  const at = Math.max(2, sheet.getLastRow() + 1);
  const full = Array.from({ length: headers.length + newHeaders.length }, (_, i) => row[i] ?? '');
  sheet.getRange(at, 1, 1, full.length).setValues([full]);
  const found = names.filter((f) => fields[f] !== undefined).length;
  return { status: 'complete', fields, row: at, message: `Row ${at}: ${found} field${found === 1 ? '' : 's'} found.` };
}

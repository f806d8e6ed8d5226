/**
 * The review step of "Extract from Drive PDF": values below REVIEW_CONFIDENCE are written only once a
 * person has confirmed or corrected each in the sidebar. The job is read again from the connector, so
 * confident values are written as read, whatever the sidebar sends.
 */
import type { TExtractedFields } from '../../shared/job.js';
import { reviewedValues, reviewItems, type ReviewAnswer } from '../../shared/review.js';
import { api } from './connector.js';
import { labelledItems } from './coverage-labels.js';
import { appendExtractedRow, type ExtractionView } from './pdf.js';
import { userLanguage } from './result-notes.js';
import { userConn } from './settings.js';

/** Writes a reviewed extraction: throws, naming them, while a value that needs review has no confirmed answer. */
export function confirmExtraction(jobId: string, answers: Record<string, ReviewAnswer>): ExtractionView {
  const job = api.job(userConn(), jobId);
  if (job.status !== 'complete') throw new Error('This extraction is not complete; extract the PDF again.');
  const fields = job.result as TExtractedFields;
  const items = labelledItems(reviewItems(fields), userLanguage());
  const written = appendExtractedRow(reviewedValues(items, answers ?? {}));
  const checked = items.filter((i) => i.needsReview).length;
  return { ...written, fields, items, message: `${written.message} ${checked} checked by you.` };
}

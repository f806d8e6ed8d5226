/**
 * The review step of bulk extraction, per file: a file whose values include one below REVIEW_CONFIDENCE
 * is written only once a person has confirmed or corrected each in the sidebar. The job is read again
 * from the connector, so confident values are written as read, whatever the sidebar sends.
 */
import type { TExtractedFields } from '../../shared/job.js';
import type { TLanguage } from '../../shared/packs/index.js';
import { reviewedValues, type ReviewAnswer, type ReviewItem } from '../../shared/review.js';
import { api } from './connector.js';
import { driveFileUrl } from './drive.js';
import {
  bulkCount,
  bulkText,
  busyQueue,
  entryIn,
  extractionItems,
  queueView,
  withQueue,
  writeEntryRow,
  type QueueView,
} from './pdf-queue.js';
import { userLanguage } from './result-notes.js';
import { BUSY_SIDEBAR } from './locks.js';
import { userConn } from './settings.js';

export interface ReviewView {
  /** `review`: nothing of it is written yet; `complete`: written, the table stays as a record. */
  status: 'review' | 'complete';
  entry: number;
  name: string;
  url: string;
  /** Every value read, with its confidence; those below REVIEW_CONFIDENCE are marked. */
  items: ReviewItem[];
  row: number | null;
  message: string;
  queue: QueueView;
}

function itemsOf(jobId: string, lang: TLanguage): ReviewItem[] {
  const job = api.job(userConn(), jobId);
  if (job.status !== 'complete') throw new Error(bulkText(lang, 'notComplete'));
  return extractionItems(job.result as TExtractedFields, lang);
}

/** The values of a file waiting for review, for the sidebar's table. */
export function reviewPdfFile(entry: number): ReviewView {
  const lang = userLanguage();
  return withQueue(
    (q) => {
      const f = entryIn(q, entry, 'review', lang);
      const items = itemsOf(f.j!, lang);
      return {
        status: 'review',
        entry,
        name: f.n,
        url: driveFileUrl(f.id),
        items,
        row: null,
        message: f.w ?? '',
        queue: queueView(q!, null, lang),
      };
    },
    () => {
      throw new Error(busyQueue(lang));
    },
  );
}

/** Writes a reviewed file's row: throws, naming them, while a value that needs review has no confirmed answer. */
export function confirmExtraction(entry: number, answers: Record<string, ReviewAnswer>): ReviewView {
  const lang = userLanguage();
  return withQueue(
    (q, save) => {
      const f = entryIn(q, entry, 'review', lang);
      const items = itemsOf(f.j!, lang);
      const written = writeEntryRow(q!, f, reviewedValues(items, answers ?? {}), lang);
      if (!written) throw new Error(BUSY_SIDEBAR);
      const checked = items.filter((i) => i.needsReview).length;
      f.w = `${f.w} ${bulkCount(lang, 'checked', checked)}`;
      save(q!);
      return {
        status: 'complete',
        entry,
        name: f.n,
        url: driveFileUrl(f.id),
        items,
        row: written.row,
        message: f.w,
        queue: queueView(q!, null, lang),
      };
    },
    () => {
      throw new Error(busyQueue(lang));
    },
  );
}

/** Drops a file waiting for review: nothing of it is written. */
export function discardPdfFile(entry: number): QueueView {
  const lang = userLanguage();
  return withQueue(
    (q, save) => {
      const f = entryIn(q, entry, 'review', lang);
      f.s = 'discarded';
      delete f.w;
      save(q!);
      return queueView(q!, null, lang);
    },
    () => {
      throw new Error(busyQueue(lang));
    },
  );
}

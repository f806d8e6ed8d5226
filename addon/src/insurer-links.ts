/**
 * The "Covercheck insurer" cell as a link to the regulator's public page for that insurer
 * (`insurer.register_url` of the result), written with the rich text API; a cell whose result has
 * no such page (demo insurers, ACAM codes, no insurer) stays plain text.
 */
import { expand, runs } from './row-runs.js';

const contiguous = (rows: number[]) => runs([...rows].sort((a, b) => a - b));
const rowsOf = (run: [number, number]) => expand([run]);

/** The text, linked when there is a URL (setText first: it clears any style set before it). */
function richText(text: string, url: string | undefined): GoogleAppsScript.Spreadsheet.RichTextValue {
  const b = SpreadsheetApp.newRichTextValue().setText(text);
  return (url ? b.setLinkUrl(url) : b).build();
}

/**
 * Writes `texts` (row -> the insurer name its cell is to show) into column `col` as rich text,
 * linked where `links` has the row's register URL: one setRichTextValues per run of consecutive
 * rows that has at least one link, the run's unlinked cells as unlinked rich text (plain text:
 * their value is the same string setValues writes), so a run costs one call however its links and
 * gaps fall. Runs without a link get no call: setValues already wrote them, and a new value drops
 * the link an earlier run may have left (Sheets API CellData.textFormatRuns: "When writing a new
 * user_entered_value, previous runs are erased"). Returns the calls made.
 */
export function linkInsurers(
  sheet: GoogleAppsScript.Spreadsheet.Sheet,
  col: number,
  texts: Map<number, string>,
  links: Map<number, string>,
): number {
  let calls = 0;
  for (const run of contiguous([...texts.keys()])) {
    const rows = rowsOf(run);
    if (!rows.some((r) => links.has(r))) continue;
    sheet.getRange(run[0], col, run[1], 1).setRichTextValues(rows.map((r) => [richText(texts.get(r)!, links.get(r))]));
    calls++;
  }
  return calls;
}

/**
 * The write-back path: the connector has written the insurer names itself, as plain text, into
 * the rows that hold each policy number now, which after a sort or a deleted row are not the rows
 * this run submitted. So the add-on never writes an insurer name there; it only adds links: it
 * reads the insurer column of each run of rows that has a link (one getValues), and links a cell
 * only if it holds exactly the name this result has, writing that same text back with its link (a
 * RichTextValue always carries its text). The link belongs to the name, so a cell holding it is
 * linked correctly whichever row the name landed in; a cell holding anything else (another row's
 * insurer, an edit, nothing yet) is left as it is. Returns the calls made.
 */
export function linkWrittenInsurers(
  sheet: GoogleAppsScript.Spreadsheet.Sheet,
  col: number,
  texts: Map<number, string>,
  links: Map<number, string>,
): number {
  let calls = 0;
  const same = new Map<number, string>();
  for (const run of contiguous([...texts.keys()])) {
    const rows = rowsOf(run);
    if (!rows.some((r) => links.has(r))) continue;
    const now = sheet.getRange(run[0], col, run[1], 1).getValues();
    calls++;
    rows.forEach((r, i) => {
      if (typeof now[i]![0] === 'string' && now[i]![0] === texts.get(r)) same.set(r, texts.get(r)!);
    });
  }
  return calls + linkInsurers(sheet, col, same, links);
}

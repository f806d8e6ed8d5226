/**
 * Status colours by conditional format rules: the add-on adds its rules to the
 * status column once and replaces only its own on later runs, so re-runs never pile up rules and
 * the user's own rules are kept (setConditionalFormatRules replaces the whole list).
 */

/** Background and text colour per status text; "Error: …" cells match by their start. */
const COLOURS: { when: 'equal' | 'starts'; text: string; background: string; font: string }[] = [
  { when: 'equal', text: 'verified', background: '#d9ead3', font: '#274e13' },
  { when: 'equal', text: 'unverified', background: '#f4cccc', font: '#660000' },
  { when: 'equal', text: 'inconclusive', background: '#fff2cc', font: '#7f6000' },
  { when: 'starts', text: 'Error:', background: '#efefef', font: '#990000' },
];

type Rule = GoogleAppsScript.Spreadsheet.ConditionalFormatRule;

/** A rule this add-on made: one of its conditions, on a range that starts in the status column. */
function isOurs(rule: Rule, statusCol: number): boolean {
  const cond = rule.getBooleanCondition();
  if (!cond) return false;
  const values = cond.getCriteriaValues().map(String);
  const type = String(cond.getCriteriaType());
  const ours = COLOURS.some((c) => values[0] === c.text && type === (c.when === 'equal' ? 'TEXT_EQUAL_TO' : 'TEXT_STARTS_WITH'));
  return ours && rule.getRanges().some((r) => r.getColumn() === statusCol && r.getNumColumns() === 1);
}

/**
 * Makes sure the status column (below the header, to the sheet's last row) carries the add-on's
 * rules exactly once. Returns how many rules it added (0 when they were already there and cover the rows).
 */
export function ensureStatusRules(sheet: GoogleAppsScript.Spreadsheet.Sheet, statusCol: number): number {
  const rows = Math.max(1, sheet.getMaxRows() - 1);
  const existing = sheet.getConditionalFormatRules();
  const ours = existing.filter((r) => isOurs(r, statusCol));
  const covers =
    ours.length === COLOURS.length && ours.every((r) => r.getRanges().every((x) => x.getRow() === 2 && x.getNumRows() >= rows));
  if (covers) return 0;
  const range = sheet.getRange(2, statusCol, rows, 1);
  const fresh = COLOURS.map((c) => {
    const b = SpreadsheetApp.newConditionalFormatRule();
    return (c.when === 'equal' ? b.whenTextEqualTo(c.text) : b.whenTextStartsWith(c.text))
      .setBackground(c.background)
      .setFontColor(c.font)
      .setRanges([range])
      .build();
  });
  sheet.setConditionalFormatRules([...existing.filter((r) => !ours.includes(r)), ...fresh]);
  return fresh.length;
}

/**
 * Lines a browser or mail client prints around a document, not the document's own: a web-mail print header
 * ("Mail - Anna Schmidt - Outlook", "Gmail - Your policy documents"), the page's address, the print time stamp and
 * page counter. A forwarded policy printed from web mail has them above its letterhead, where a name is looked for.
 */

/** Mail clients whose print header names the client after a dash, or starts with it before one. */
const MAIL_CLIENT = '(?:outlook|gmail|yahoo mail|mail|thunderbird|web\\.de|gmx|orange mail|proton mail)';
const CHROME = [
  new RegExp(`^${MAIL_CLIENT}\\s+[-–—]\\s`, 'i'),
  new RegExp(`\\s[-–—]\\s+${MAIL_CLIENT}(?:\\s|$)`, 'i'),
  /^(?:https?:\/\/|www\.)\S+/i,
  /\bhttps?:\/\/\S+\s*(?:\d+\s*\/\s*\d+)?\s*$/i,
  // The print time stamp a browser puts first ("06/03/2025, 14:22").
  /^\d{1,2}[./]\d{1,2}[./]\d{2,4},?\s+\d{1,2}:\d{2}\b/,
  /^\s*\d+\s*\/\s*\d+\s*$/,
];

/** True for a line of print chrome. */
export function isPrintChrome(text: string): boolean {
  return CHROME.some((re) => re.test(text));
}

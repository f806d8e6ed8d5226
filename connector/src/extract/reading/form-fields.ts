/**
 * The values of a fillable form (AcroForm): pdf.js reads them from the widget annotations, which the page's
 * text layer does not hold. Each value becomes text at its widget's place, on the line of the printed label
 * beside it, so fields/ pairs label and value by position as on any page; a field name that says something
 * ("policy_number", "Versicherungsnummer") travels with the value as words, one that says nothing ("Text3",
 * "fill_12") does not.
 */
import type { PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { WordBox } from './lines.js';
import type { PlacedItem } from './text-layer.js';

/** What pdf.js says of a widget annotation (the fields read here; see its annotation.js). */
interface Widget {
  annotationType: number;
  fieldType?: string;
  fieldName?: string;
  fieldValue?: unknown;
  rect: number[];
  hidden?: boolean;
  checkBox?: boolean;
  radioButton?: boolean;
  pushButton?: boolean;
  exportValue?: string;
  buttonValue?: string;
  options?: Array<{ exportValue: unknown; displayValue: unknown }>;
  textAlignment?: number | null;
  multiLine?: boolean;
  defaultAppearanceData?: { fontSize?: number };
}

const WIDGET = 20;
/** What a ticked and an empty box read as: the characters a printed form's own boxes are. */
export const CHECKED = '☒';
export const UNCHECKED = '☐';

/**
 * The form's values on `page` as word boxes in the page's reading frame (upright text), each on the baseline
 * of the printed text left of it where there is some (`printed`: the page's upright text items). Values
 * the page's own content already shows at the widget's place are left out, so they are not read twice.
 */
export async function readFormValues(page: PDFPageProxy, printed: readonly PlacedItem[]): Promise<WordBox[]> {
  const annotations = (await page.getAnnotations({ intent: 'display' })) as Widget[];
  const widgets = annotations.filter((a) => a.annotationType === WIDGET && !a.hidden && !a.pushButton);
  if (widgets.length === 0) return [];
  const viewport = page.getViewport({ scale: 1 });
  const upright = printed.filter((p) => p.direction === 0);
  const out: WordBox[] = [];
  for (const w of widgets) {
    const value = shownValue(w);
    if (!value) continue;
    const [ax, ay, bx, by] = viewport.convertToViewportRectangle(w.rect) as number[];
    const box = { x0: Math.min(ax!, bx!), y0: Math.min(ay!, by!), x1: Math.max(ax!, bx!), y1: Math.max(ay!, by!) };
    if (shownByContent(value, box, upright)) continue;
    const fontSize = w.defaultAppearanceData?.fontSize || Math.min(12, Math.max(6, 0.6 * (box.y1 - box.y0)));
    const field = nameWords(w.fieldName ?? '');
    const lines = value.split(/\r\n|\r|\n/).filter((l) => l.trim());
    const label = labelBeside(box, upright);
    lines.forEach((text, i) => {
      const width = Math.min(box.x1 - box.x0, 0.5 * fontSize * text.length);
      const align = w.textAlignment ?? 0;
      const x0 = align === 1 ? (box.x0 + box.x1 - width) / 2 : align === 2 ? box.x1 - 2 - width : box.x0 + 2;
      // A single line sits in the middle of its box (as viewers draw it); more lines run down from the top.
      const y =
        lines.length > 1 ? box.y0 + (i + 1) * fontSize * 1.15 : label && i === 0 ? label.y : (box.y0 + box.y1) / 2 + 0.35 * fontSize;
      out.push({
        text,
        x0,
        x1: x0 + width,
        y,
        height: label && lines.length === 1 ? label.height : fontSize,
        formValue: true,
        ...(field ? { field } : {}),
      });
    });
  }
  return out;
}

/** The value as a person sees it: the text, the chosen option's display text, a ticked or empty box. */
function shownValue(w: Widget): string {
  const v = w.fieldValue;
  if (w.fieldType === 'Btn') {
    if (!w.checkBox && !w.radioButton) return '';
    const on = typeof v === 'string' && v !== '' && v !== 'Off';
    const mine = w.radioButton ? v === w.buttonValue : w.exportValue === undefined || v === w.exportValue;
    return on && mine ? CHECKED : UNCHECKED;
  }
  const values = (Array.isArray(v) ? v : [v]).filter((x): x is string => typeof x === 'string' && x.trim() !== '');
  if (w.fieldType === 'Ch') {
    return values.map((x) => String(w.options?.find((o) => o.exportValue === x)?.displayValue ?? x)).join(', ');
  }
  return w.fieldType === 'Tx' ? values.join('\n') : '';
}

/** True when the page's own text inside the widget's box already reads `value` (a form printed and kept fillable). */
function shownByContent(value: string, box: { x0: number; y0: number; x1: number; y1: number }, items: readonly PlacedItem[]): boolean {
  const inside = items.filter((p) => {
    const cx = (p.box[0] + p.box[2]) / 2;
    const cy = (p.box[1] + p.box[3]) / 2;
    return cx >= box.x0 && cx <= box.x1 && cy >= box.y0 && cy <= box.y1;
  });
  if (inside.length === 0) return false;
  const squash = (s: string) => s.replace(/\s+/g, '').toLowerCase();
  return squash(inside.map((p) => p.text).join('')).includes(squash(value));
}

/** The printed text ending left of the box whose middle lies within the box's height: the label the value belongs to. */
function labelBeside(box: { x0: number; y0: number; x1: number; y1: number }, items: readonly PlacedItem[]): PlacedItem | undefined {
  let best: PlacedItem | undefined;
  for (const p of items) {
    const cy = (p.box[1] + p.box[3]) / 2;
    if (cy < box.y0 || cy > box.y1 || p.box[2] > box.x0 + 2 || box.x0 - p.box[2] > 300) continue;
    if (!best || p.box[2] > best.box[2]) best = p;
  }
  return best;
}

/** Words form tools put in names they make up: a name made only of these (and numbers) says nothing. */
const TOOL_WORDS = new Set([
  'text',
  'textfield',
  'field',
  'fill',
  'check',
  'checkbox',
  'box',
  'combo',
  'combobox',
  'dropdown',
  'list',
  'listbox',
  'radio',
  'button',
  'group',
  'choice',
  'untitled',
  'undefined',
  'form',
  'topmostsubform',
  'subform',
  'page',
  'row',
  'col',
  'cell',
  'txt',
  'tf',
  'cb',
  'dd',
  'fld',
  'feld',
  'textfeld',
  'champ',
  'case',
]);

/**
 * The words of a field's name when they say something: "form1[0].page1[0].policy_number[0]" -> "policy number",
 * "VersicherungsNr" -> "versicherungs nr"; "Text3", "fill_12", "Check Box8" -> undefined.
 */
export function nameWords(fullName: string): string | undefined {
  const last = fullName.split('.').pop() ?? '';
  const words = last
    .replace(/\[\d+\]/g, ' ')
    .replace(/([a-zäöüß])([A-ZÄÖÜ])/g, '$1 $2')
    .split(/[^\p{L}]+/u)
    .map((w) => w.toLowerCase())
    .filter((w) => w.length > 0);
  if (!words.some((w) => w.length >= 3 && !TOOL_WORDS.has(w))) return undefined;
  return words.join(' ');
}

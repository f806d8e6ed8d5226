/**
 * A fillable form (AcroForm): the drawing's labels and other text printed on the page, each value only in a
 * form field at its place (a text field, a comb field, a combo box or a check box). Field names are the
 * drawing's (`policy_number`) or say nothing (`Text3`), as many form authors leave them. With
 * `appearances: 'none'` the widgets carry no appearance streams and the form asks the viewer to make them
 * (NeedAppearances), as forms filled by some tools arrive.
 */
import { PDFDocument, PDFName, PDFBool, StandardFonts } from 'pdf-lib';
import { addRawPage, plainTextOps, standardFonts, textWidth, type Drawing, type DrawnText } from './drawing.js';

export interface FillableFormOptions {
  names?: 'meaningful' | 'generic';
  appearances?: 'generated' | 'none';
}

/** The drawing as a form whose values live only in its fields. */
export async function drawAsFillableForm(drawing: Drawing, options: FillableFormOptions = {}): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const plain = standardFonts(doc);
  const helvetica = await doc.embedFont(StandardFonts.Helvetica);
  const form = doc.getForm();
  let n = 0;
  for (const drawn of drawing.pages) {
    const printed = drawn.texts.filter((t) => t.role !== 'value');
    addRawPage(doc, drawn, printed.map(plainTextOps).join(''), {}, plain);
    const page = doc.getPage(doc.getPageCount() - 1);
    for (const t of drawn.texts.filter((x) => x.role === 'value')) {
      n++;
      const name = options.names === 'generic' || !t.field ? genericName(t, n) : t.field;
      const box = fieldBox(t);
      const control = t.control ?? { kind: 'text' };
      if (control.kind === 'check') {
        const check = form.createCheckBox(name);
        check.addToPage(page, { x: t.x, y: t.y - 2, width: t.size + 2, height: t.size + 2 });
        if (t.text.trim()) check.check();
      } else if (control.kind === 'choice') {
        const dropdown = form.createDropdown(name);
        dropdown.addOptions(control.options.includes(t.text) ? control.options : [...control.options, t.text]);
        dropdown.select(t.text);
        dropdown.addToPage(page, { ...box, font: helvetica, borderWidth: 1 });
        dropdown.setFontSize(t.size);
      } else {
        const field = form.createTextField(name);
        if (control.kind === 'comb') {
          field.setMaxLength(control.cells);
          field.enableCombing();
        }
        field.setText(t.text);
        const width = control.kind === 'comb' ? control.cells * (t.size * 1.1) : box.width;
        field.addToPage(page, { ...box, width, font: helvetica, borderWidth: 1 });
        field.setFontSize(t.size);
      }
    }
  }
  form.updateFieldAppearances(helvetica);
  if (options.appearances === 'none') {
    for (const field of form.getFields()) for (const widget of field.acroField.getWidgets()) widget.dict.delete(PDFName.of('AP'));
    form.acroForm.dict.set(PDFName.of('NeedAppearances'), PDFBool.True);
  }
  return doc.save({ useObjectStreams: false, updateFieldAppearances: false });
}

/** The field's box: the value's baseline a quarter of the box up, as form tools centre a line of text. */
function fieldBox(t: DrawnText): { x: number; y: number; width: number; height: number } {
  const height = t.size * 1.8;
  return { x: t.x - 2, y: t.y - (height - t.size) / 2 - 0.2 * t.size, width: Math.max(120, textWidth(t.text, t.size) + 24), height };
}

/** A name as form tools make them when nobody names the fields. */
function genericName(t: DrawnText, n: number): string {
  const kind = t.control?.kind ?? 'text';
  return kind === 'check' ? `Check Box${n}` : kind === 'choice' ? `Dropdown${n}` : n % 2 ? `Text${n}` : `fill_${n}`;
}

/**
 * A filled form flattened: each field's appearance drawn into its page as a form XObject after the printed
 * labels (pdf-lib's flatten, as print-to-PDF and many filling tools do) and the form itself removed.
 */
export async function flattenForm(pdf: Uint8Array): Promise<Uint8Array> {
  const doc = await PDFDocument.load(pdf);
  doc.getForm().flatten({ updateFieldAppearances: false });
  return doc.save({ useObjectStreams: false });
}

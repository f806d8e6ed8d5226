/**
 * Accessibility checks run inside a page the add-on showed (WCAG 2.1: 1.4.3 text contrast, 2.4.7 focus
 * visible, 1.4.11 non-text contrast of the focus ring), as plain JavaScript so nothing the test compiler
 * adds reaches the page.
 */
import type { Page } from 'playwright-core';

/** Colours, compositing and the WCAG contrast ratio, defined in the page as `window.__a11y`. */
const HELPERS = `window.__a11y = (() => {
  const parse = (c) => { const m = /rgba?\\(([^)]+)\\)/.exec(c || ''); if (!m) return null; const p = m[1].split(/[\\s,\\/]+/).filter(Boolean).map(Number); return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; };
  const over = (top, under) => [0, 1, 2].map((i) => top[i] * top[3] + under[i] * (1 - top[3])).concat(1);
  const lum = (c) => { const v = c.slice(0, 3).map((x) => { x /= 255; return x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4); }); return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2]; };
  const ratio = (a, b) => { const x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
  // Every colour the element's box may show behind its text: its and its ancestors' background colours
  // composited onto white, each stop of a gradient counted as a background of its own.
  function backgrounds(el) {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const s = getComputedStyle(e);
      const stops = (s.backgroundImage.match(/rgba?\\([^)]+\\)/g) || []).map(parse);
      const color = parse(s.backgroundColor);
      layers.push({ stops, color });
      if ((stops.length && stops.every((c) => c[3] === 1)) || (color && color[3] === 1)) break;
    }
    let out = [[255, 255, 255, 1]];
    for (const l of layers.reverse()) {
      if (l.color && l.color[3] > 0) out = out.map((c) => over(l.color, c));
      if (l.stops.length) out = out.flatMap((c) => l.stops.map((s) => over(s, c)));
    }
    return out;
  }
  function opacity(el) { let o = 1; for (let e = el; e; e = e.parentElement) o *= Number(getComputedStyle(e).opacity); return o; }
  const visible = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility === 'visible';
  // Tag, id and classes, and the element's place in the document, so two alike buttons are told apart.
  const name = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + (el.className && typeof el.className === 'string' && el.className.trim() ? '.' + el.className.trim().split(/\\s+/).join('.') : '') +
    '@' + Array.prototype.indexOf.call(document.getElementsByTagName('*'), el) + (el.id ? '' : ' "' + (el.textContent || '').trim().slice(0, 20) + '"');
  function worst(el, color) {
    const c = parse(color);
    const a = c[3] * opacity(el);
    return Math.min(...backgrounds(el).map((b) => ratio(over([c[0], c[1], c[2], a], b), b)));
  }
  /** Each visible text (own text nodes, form values, placeholders) with its lowest contrast; disabled controls are exempt. */
  function texts() {
    const out = [];
    for (const el of document.body.querySelectorAll('*')) {
      if (!visible(el) || el.closest(':disabled') || el.tagName === 'SCRIPT' || el.tagName === 'STYLE') continue;
      const own = Array.from(el.childNodes).filter((n) => n.nodeType === 3).map((n) => n.textContent).join('').trim();
      const field = el.matches('input[type=text], input[type=number], input[type=password], select');
      if (own) out.push({ el: name(el), text: own.slice(0, 40), ratio: worst(el, getComputedStyle(el).color) });
      if (field) out.push({ el: name(el), text: '(value) ' + String(el.value).slice(0, 40), ratio: worst(el, getComputedStyle(el).color) });
      if (field && el.placeholder && !el.value) out.push({ el: name(el), text: '(placeholder) ' + el.placeholder.slice(0, 40), ratio: worst(el, getComputedStyle(el, '::placeholder').color) });
    }
    return out;
  }
  /** Every control a keyboard user can reach: visible, enabled, focusable. */
  function controls() {
    return Array.from(document.querySelectorAll('a[href], button, input, select, textarea, summary, [tabindex]'))
      .filter((el) => visible(el) && !el.disabled && el.tabIndex >= 0).map(name);
  }
  /** The focused control and its ring: outline style, width, and its contrast against what is around it. */
  function focused() {
    const el = document.activeElement;
    if (!el || el === document.body) return null;
    const s = getComputedStyle(el);
    const ring = s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0 ? worst(el.parentElement, s.outlineColor) : 0;
    return { el: name(el), style: s.outlineStyle, width: parseFloat(s.outlineWidth), ring };
  }
  return { texts, controls, focused };
})();`;

export interface TextContrast {
  el: string;
  text: string;
  ratio: number;
}
export interface FocusRing {
  el: string;
  style: string;
  width: number;
  ring: number;
}

/** The visible texts of the page whose contrast is below `min` (WCAG AA: 4.5 for body text). */
export async function lowContrast(page: Page, min = 4.5): Promise<{ checked: number; low: TextContrast[] }> {
  await page.evaluate(HELPERS);
  const all = (await page.evaluate('window.__a11y.texts()')) as TextContrast[];
  return { checked: all.length, low: all.filter((t) => t.ratio < min).map((t) => ({ ...t, ratio: Math.round(t.ratio * 100) / 100 })) };
}

/**
 * Tabs through the page from the top until focus comes back round, and answers every control reached with
 * its focus ring, and the controls that exist but were never reached.
 */
export async function tabThrough(page: Page): Promise<{ reached: FocusRing[]; missed: string[] }> {
  await page.evaluate(HELPERS);
  const all = (await page.evaluate('window.__a11y.controls()')) as string[];
  await page.evaluate('document.activeElement && document.activeElement.blur()');
  const reached: FocusRing[] = [];
  for (let i = 0; i < all.length + 5; i++) {
    await page.keyboard.press('Tab');
    const f = (await page.evaluate('window.__a11y.focused()')) as FocusRing | null;
    if (!f) {
      if (reached.length) break;
      else continue;
    }
    if (reached.length && f.el === reached[0]!.el) break;
    reached.push(f);
  }
  const seen = new Set(reached.map((r) => r.el));
  return { reached, missed: all.filter((c) => !seen.has(c)) };
}

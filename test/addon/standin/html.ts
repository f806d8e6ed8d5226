/** HtmlService (templates with printing scriptlets) and the Sheets Ui (menus, sidebars, dialogs). */
import fs from 'node:fs';
import path from 'node:path';
import { GasError, type Guard } from './runtime.js';

type V = any;

export interface UiLog {
  menus: { items: (string | { label: string; fn: string })[] }[];
  sidebars: V[];
  dialogs: { out: V; title: string; modal: boolean }[];
}

const escapeHtml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

function htmlOutput(content: string) {
  const o: V = { content, title: '', width: 0, height: 0 };
  o.setTitle = (t: string) => ((o.title = t), o);
  o.setWidth = (w: number) => ((o.width = w), o);
  o.setHeight = (x: number) => ((o.height = x), o);
  o.setSandboxMode = () => o;
  o.getContent = () => o.content;
  o.getTitle = () => o.title;
  return o;
}

export function makeHtmlService(guard: Guard, dir: string) {
  const read = (name: string) => {
    const f = path.join(dir, `${name}.html`);
    if (!fs.existsSync(f)) throw new GasError(`No HTML file named ${name} was found.`);
    return fs.readFileSync(f, 'utf8');
  };
  return {
    SandboxMode: { IFRAME: 'IFRAME' },
    createHtmlOutputFromFile(name: string) {
      guard.call('HtmlService.createHtmlOutputFromFile');
      return htmlOutput(read(name));
    },
    /**
     * reference/html/html-template: <?= x ?> prints x escaped, <?!= x ?> prints it as is. The
     * stand-in evaluates template variables only (the add-on's templates use nothing else).
     */
    createTemplateFromFile(name: string) {
      guard.call('HtmlService.createTemplateFromFile');
      const src = read(name);
      const t: V = {
        evaluate: () =>
          htmlOutput(
            src.replace(/<\?(!?)=\s*([A-Za-z_]\w*)\s*\?>/g, (_m, raw: string, k: string) => {
              if (!(k in t)) throw new GasError(`ReferenceError: ${k} is not defined`);
              return raw ? String(t[k]) : escapeHtml(String(t[k]));
            }),
          ),
      };
      return t;
    },
  };
}

export function makeUi(guard: Guard, log: () => UiLog) {
  return {
    createAddonMenu() {
      guard.call('Ui.createAddonMenu');
      const menu = { items: [] as UiLog['menus'][number]['items'] };
      const m: V = {
        addItem: (label: string, fn: string) => (guard.call('Menu.addItem'), menu.items.push({ label, fn }), m),
        addSeparator: () => (guard.call('Menu.addSeparator'), menu.items.push('---'), m),
        addToUi: () => (guard.call('Menu.addToUi'), log().menus.push(menu)),
      };
      return m;
    },
    showSidebar(out: V) {
      guard.call('Ui.showSidebar');
      log().sidebars.push(out);
    },
    showModalDialog(out: V, title: string) {
      guard.call('Ui.showModalDialog');
      log().dialogs.push({ out, title, modal: true });
    },
    showModelessDialog(out: V, title: string) {
      guard.call('Ui.showModelessDialog');
      log().dialogs.push({ out, title, modal: false });
    },
  };
}

/**
 * The add-on menu, the sidebar (one HTML page, four views) and the settings dialog. onOpen runs
 * as a simple trigger, in AuthMode.NONE where the add-on is installed but not yet used in this
 * document, else AuthMode.LIMITED (Editor add-on authorization): it only builds the menu, which
 * both allow.
 */
import { LANGUAGE_PACKS } from '../../shared/packs/index.js';
import { userLanguage } from './result-notes.js';

export type SidebarView = 'rows' | 'watches' | 'pdf' | 'datasets';

export function onOpen(_e?: unknown): void {
  SpreadsheetApp.getUi()
    .createAddonMenu()
    .addItem('Verify selected rows', 'showVerifySidebar')
    .addItem('Watch selected rows', 'showWatchSidebar')
    .addItem('Extract from Drive PDF', 'showPdfSidebar')
    .addItem('Import dataset', 'showDatasetSidebar')
    .addItem('Update pending results', 'updatePendingResults')
    .addSeparator()
    .addItem('Settings', 'showSettings')
    .addToUi();
}

/** Runs in AuthMode.FULL when the add-on is installed from the Marketplace: the menu at once, without reloading. */
export function onInstall(e?: unknown): void {
  onOpen(e);
}

/** The sidebar in the user's language: its texts from the language pack, as JSON the page reads from its body. */
function showSidebar(view: SidebarView): void {
  const t = HtmlService.createTemplateFromFile('sidebar');
  const lang = userLanguage();
  Object.assign(t as unknown as Record<string, string>, { view, lang, texts: JSON.stringify(LANGUAGE_PACKS[lang].addon.sidebar) });
  SpreadsheetApp.getUi().showSidebar(t.evaluate().setTitle('Covercheck'));
}

export const showVerifySidebar = () => showSidebar('rows');
export const showWatchSidebar = () => showSidebar('watches');
export const showPdfSidebar = () => showSidebar('pdf');
export const showDatasetSidebar = () => showSidebar('datasets');

export function showSettings(): void {
  const out = HtmlService.createHtmlOutputFromFile('settings').setWidth(460).setHeight(520);
  SpreadsheetApp.getUi().showModalDialog(out, 'Covercheck settings');
}

/**
 * The add-on menu, the sidebar (one HTML page, three views) and the settings dialog. onOpen runs
 * as a simple trigger, in AuthMode.NONE where the add-on is installed but not yet used in this
 * document, else AuthMode.LIMITED (Editor add-on authorization): it only builds the menu, which
 * both allow.
 */

export type SidebarView = 'rows' | 'pdf' | 'datasets';

export function onOpen(_e?: unknown): void {
  SpreadsheetApp.getUi()
    .createAddonMenu()
    .addItem('Verify selected rows', 'showVerifySidebar')
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

function showSidebar(view: SidebarView): void {
  const t = HtmlService.createTemplateFromFile('sidebar');
  (t as unknown as { view: string }).view = view;
  SpreadsheetApp.getUi().showSidebar(t.evaluate().setTitle('Covercheck'));
}

export const showVerifySidebar = () => showSidebar('rows');
export const showPdfSidebar = () => showSidebar('pdf');
export const showDatasetSidebar = () => showSidebar('datasets');

export function showSettings(): void {
  const out = HtmlService.createHtmlOutputFromFile('settings').setWidth(460).setHeight(520);
  SpreadsheetApp.getUi().showModalDialog(out, 'Covercheck settings');
}

/**
 * The OAuth scopes each modelled Apps Script method needs (any one of the list), as the
 * "Authorization" section of that method in the Apps Script reference states it
 * (https://developers.google.com/apps-script/reference/<service>/<class>#<method>). A method the
 * reference lists with no scope needs none. Read against the manifest's oauthScopes: a script
 * that lists its scopes explicitly can call a method only when one of its scopes is listed
 * ("Authorization scopes" guide, "Set explicit scopes").
 */
const AUTH = 'https://www.googleapis.com/auth/';
const SHEETS = ['spreadsheets.currentonly', 'spreadsheets'];
const DRIVE_READ = ['drive.readonly', 'drive'];
const UI = ['script.container.ui'];
const SCRIPTAPP = ['script.scriptapp'];

const table: Record<string, string[]> = {
  // reference/spreadsheet/spreadsheet-app
  'SpreadsheetApp.getActiveSpreadsheet': SHEETS,
  'SpreadsheetApp.getActive': SHEETS,
  'SpreadsheetApp.getActiveSheet': SHEETS,
  'SpreadsheetApp.getActiveRange': SHEETS,
  'SpreadsheetApp.openById': ['spreadsheets'],
  'SpreadsheetApp.getUi': [],
  // reference/spreadsheet/spreadsheet (getId, getSheetByName, getSheets, getActiveSheet list none)
  'Spreadsheet.getId': [],
  'Spreadsheet.getSheetByName': [],
  'Spreadsheet.getSheets': [],
  'Spreadsheet.getActiveSheet': [],
  'Spreadsheet.getActiveRange': SHEETS,
  'Spreadsheet.insertSheet': SHEETS,
  'Spreadsheet.setActiveSheet': SHEETS,
  'Spreadsheet.toast': SHEETS,
  'Spreadsheet.getSpreadsheetLocale': SHEETS,
  'Spreadsheet.getSpreadsheetTimeZone': SHEETS,
  'Spreadsheet.setSpreadsheetTimeZone': SHEETS,
  'SpreadsheetApp.newConditionalFormatRule': [],
  // reference/spreadsheet/spreadsheet-app#newRichTextValue, rich-text-value-builder, rich-text-value: no Authorization section
  'SpreadsheetApp.newRichTextValue': [],
  'RichTextValueBuilder.build': [],
  'RichTextValue.getText': [],
  'RichTextValue.getLinkUrl': [],
  'Spreadsheet.addDeveloperMetadata': SHEETS,
  'Spreadsheet.getDeveloperMetadata': SHEETS,
  'Spreadsheet.createDeveloperMetadataFinder': [],
  // reference/spreadsheet/developer-metadata-finder, developer-metadata
  'DeveloperMetadataFinder.find': SHEETS,
  'DeveloperMetadata.getId': SHEETS,
  'DeveloperMetadata.getKey': SHEETS,
  'DeveloperMetadata.getValue': SHEETS,
  'DeveloperMetadata.getVisibility': SHEETS,
  'DeveloperMetadata.remove': SHEETS,
  // reference/spreadsheet/sheet (newChart lists none)
  'Sheet.getName': SHEETS,
  'Sheet.getParent': SHEETS,
  'Sheet.getRange': SHEETS,
  'Sheet.getDataRange': SHEETS,
  'Sheet.getLastRow': SHEETS,
  'Sheet.getLastColumn': SHEETS,
  'Sheet.clear': SHEETS,
  'Sheet.clearContents': SHEETS,
  'Sheet.getCharts': SHEETS,
  'Sheet.insertChart': SHEETS,
  'Sheet.removeChart': SHEETS,
  'Sheet.newChart': [],
  'Sheet.getMaxRows': SHEETS,
  'Sheet.hideColumns': SHEETS,
  'Sheet.isColumnHiddenByUser': SHEETS,
  'Sheet.getConditionalFormatRules': SHEETS,
  'Sheet.setConditionalFormatRules': SHEETS,
  // reference/spreadsheet/conditional-format-rule(-builder): build and copy list none, getRanges the sheet scopes
  'ConditionalFormatRule.getRanges': SHEETS,
  'ConditionalFormatRule.getBooleanCondition': [],
  'ConditionalFormatRule.copy': [],
  'ConditionalFormatRuleBuilder.build': [],
  // reference/spreadsheet/range
  'Range.getSheet': SHEETS,
  'Range.getRow': SHEETS,
  'Range.getColumn': SHEETS,
  'Range.getLastRow': SHEETS,
  'Range.getLastColumn': SHEETS,
  'Range.getNumRows': SHEETS,
  'Range.getNumColumns': SHEETS,
  'Range.getA1Notation': SHEETS,
  'Range.getValues': SHEETS,
  'Range.getValue': SHEETS,
  'Range.setValues': SHEETS,
  'Range.setValue': SHEETS,
  'Range.getDisplayValues': SHEETS,
  'Range.getDisplayValue': SHEETS,
  'Range.setNumberFormat': SHEETS,
  'Range.getFormulas': SHEETS,
  'Range.getFormula': SHEETS,
  'Range.setFormulas': SHEETS,
  'Range.setFormula': SHEETS,
  'Range.setRichTextValues': SHEETS,
  'Range.getRichTextValues': SHEETS,
  'Range.setNote': SHEETS,
  'Range.setNotes': SHEETS,
  'Range.getNote': SHEETS,
  'Range.getNotes': SHEETS,
  'Range.activate': SHEETS,
  // reference/base/ui
  'Ui.createAddonMenu': [],
  'Ui.showSidebar': UI,
  'Ui.showModalDialog': UI,
  'Ui.showModelessDialog': UI,
  // reference/url-fetch/url-fetch-app
  'UrlFetchApp.fetch': ['script.external_request'],
  'UrlFetchApp.fetchAll': ['script.external_request'],
  // reference/script/script-app, trigger-builder, trigger (getOAuthToken lists none)
  'ScriptApp.newTrigger': SCRIPTAPP,
  'ScriptApp.getProjectTriggers': SCRIPTAPP,
  'ScriptApp.getUserTriggers': SCRIPTAPP,
  // getAuthorizationInfo and the AuthorizationInfo methods list no Authorization section
  'ScriptApp.getAuthorizationInfo': [],
  'ScriptApp.deleteTrigger': SCRIPTAPP,
  'ScriptApp.getOAuthToken': [],
  'TriggerBuilder.timeBased': SCRIPTAPP,
  'Trigger.getUniqueId': SCRIPTAPP,
  'Trigger.getHandlerFunction': SCRIPTAPP,
  'Trigger.getEventType': SCRIPTAPP,
  // reference/base/session
  'Session.getActiveUser': ['userinfo.email'],
  'Session.getEffectiveUser': ['userinfo.email'],
  'Session.getTemporaryActiveUserKey': [],
  'Session.getActiveUserLocale': [],
  // reference/drive/drive-app, file (getBlob lists none)
  'DriveApp.getFileById': DRIVE_READ,
  'File.getName': DRIVE_READ,
  'File.getMimeType': DRIVE_READ,
  'File.getSize': DRIVE_READ,
  'File.getBlob': [],
};

/** Methods the reference lists without an Authorization section (they need no scope). */
const NO_SCOPE = [
  'Cache.get',
  'Cache.getAll',
  'Cache.put',
  'Cache.putAll',
  'Cache.remove',
  'Cache.removeAll',
  'CacheService.getDocumentCache',
  'CacheService.getUserCache',
  'CacheService.getScriptCache',
  'Properties.getProperty',
  'Properties.getProperties',
  'Properties.getKeys',
  'Properties.setProperty',
  'Properties.setProperties',
  'Properties.deleteProperty',
  'Properties.deleteAllProperties',
  'PropertiesService.getDocumentProperties',
  'PropertiesService.getUserProperties',
  'PropertiesService.getScriptProperties',
  'HtmlService.createHtmlOutputFromFile',
  'HtmlService.createTemplateFromFile',
  'HtmlService.createHtmlOutput',
  'Menu.addItem',
  'Menu.addSeparator',
  'Menu.addToUi',
  'Utilities.sleep',
  'Utilities.computeDigest',
  'Utilities.base64Encode',
  'Utilities.base64EncodeWebSafe',
  'Utilities.newBlob',
  'Utilities.getUuid',
  'Utilities.formatDate',
  'EmbeddedChartBuilder.build',
  // reference/lock/lock-service, lock: no Authorization section
  'LockService.getDocumentLock',
  'LockService.getScriptLock',
  'LockService.getUserLock',
  'Lock.tryLock',
  'Lock.waitLock',
  'Lock.hasLock',
  'Lock.releaseLock',
];
for (const m of NO_SCOPE) table[m] = [];

export const METHOD_SCOPES: Readonly<Record<string, readonly string[]>> = Object.fromEntries(
  Object.entries(table).map(([m, s]) => [m, s.map((x) => AUTH + x)]),
);

/** The scopes `method` needs (any one), or throws when the stand-in does not model the method (so a new call is noticed). */
export function scopesFor(method: string): readonly string[] {
  const s = METHOD_SCOPES[method];
  if (!s) throw new Error(`stand-in: no scope entry for ${method}: add it to test/addon/standin/scopes.ts from the Apps Script reference`);
  return s;
}

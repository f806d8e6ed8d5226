/**
 * The bundle's entry: every function Apps Script may call (menu items, triggers, google.script.run
 * targets, the custom function) is put on globalThis.__covercheck; scripts/build-addon.mjs adds a
 * top-level stub for each, because Apps Script only sees top-level function declarations.
 */
import { bindSpreadsheet, disconnectSpreadsheet, getBindingStatus } from './bindings.js';
import {
  importDataset,
  listSchedules,
  previewDataset,
  refreshScheduledImports,
  refreshScheduleNow,
  removeSchedule,
  resumeSchedule,
  searchDatasets,
} from './datasets.js';
import { onInstall, onOpen, showDatasetSidebar, showPdfSidebar, showSettings, showVerifySidebar } from './menu.js';
import {
  getPick,
  getPickerConfig,
  pickCancelled,
  pickedPdf,
  pickerAlive,
  pollPdfExtraction,
  showPdfPicker,
  submitPdfExtraction,
} from './pdf.js';
import { confirmExtraction } from './review.js';
import { detectRowMapping, pollRowsRun, rowsToVerify, startRowsRun } from './rows.js';
import { updatePendingResults } from './pending-cells.js';
import { jumpToRow } from './run-summary.js';
import { clearKey, getSettings, grantKeyToSpreadsheet, revokeGrant, saveSettings, testConnection } from './settings.js';
import {
  createConnectorSchedule,
  getSheetsInfo,
  listConnectorSchedules,
  removeConnectorSchedule,
  resumeConnectorSchedule,
} from './sheets.js';
import { VERIFYPOLICY } from './verifypolicy.js';

export const entryPoints = {
  VERIFYPOLICY,
  updatePendingResults,
  onOpen,
  onInstall,
  showVerifySidebar,
  showPdfSidebar,
  showDatasetSidebar,
  showSettings,
  getSettings,
  saveSettings,
  clearKey,
  testConnection,
  grantKeyToSpreadsheet,
  revokeGrant,
  detectRowMapping,
  rowsToVerify,
  startRowsRun,
  pollRowsRun,
  jumpToRow,
  submitPdfExtraction,
  pollPdfExtraction,
  confirmExtraction,
  showPdfPicker,
  getPickerConfig,
  pickedPdf,
  pickCancelled,
  pickerAlive,
  getPick,
  searchDatasets,
  previewDataset,
  importDataset,
  listSchedules,
  removeSchedule,
  refreshScheduledImports,
  refreshScheduleNow,
  resumeSchedule,
  getSheetsInfo,
  listConnectorSchedules,
  createConnectorSchedule,
  removeConnectorSchedule,
  resumeConnectorSchedule,
  getBindingStatus,
  bindSpreadsheet,
  disconnectSpreadsheet,
};

(globalThis as unknown as { __covercheck: typeof entryPoints }).__covercheck = entryPoints;

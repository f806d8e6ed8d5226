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
import { onInstall, onOpen, showDatasetSidebar, showPdfSidebar, showSettings, showVerifySidebar, showWatchSidebar } from './menu.js';
import { addPdfLinks, getPick, getPickerConfig, pickCancelled, pickedPdf, pickerAlive, showPdfPicker } from './pdf.js';
import { pollPdfQueue, uploadNextPdf } from './pdf-queue.js';
import { confirmExtraction, discardPdfFile, reviewPdfFile } from './review.js';
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
import { getRowHistory } from './row-history.js';
import { detectWatchRows } from './watch-rows.js';
import { deleteWatch, listWatches, pauseWatch, resumeWatch, watchSelectedRows } from './watches.js';

export const entryPoints = {
  VERIFYPOLICY,
  updatePendingResults,
  onOpen,
  onInstall,
  showVerifySidebar,
  showWatchSidebar,
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
  addPdfLinks,
  pollPdfQueue,
  uploadNextPdf,
  reviewPdfFile,
  confirmExtraction,
  discardPdfFile,
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
  detectWatchRows,
  watchSelectedRows,
  listWatches,
  pauseWatch,
  resumeWatch,
  deleteWatch,
  getRowHistory,
};

(globalThis as unknown as { __covercheck: typeof entryPoints }).__covercheck = entryPoints;

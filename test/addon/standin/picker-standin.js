// Served in place of https://apis.google.com/js/api.js in the Chromium tests: gapi.load and the
// parts of google.picker the add-on uses, with the real API's names and callback shape (Picker
// reference: PickerBuilder, DocsView, ViewId, Action, Response, Document; ResponseObject). It
// lists the token owner's Drive files of the view's type and, on a pick, grants the app drive.file
// access to the file only when setAppId named the project (as the Picker does), through the test's
// bridge functions __pickerFiles(token, mimeType) and __pickerGrant(token, appId, fileId).
(function () {
  var picker = {
    ViewId: { DOCS: 'all', PDFS: 'pdfs', SPREADSHEETS: 'spreadsheets' },
    DocsViewMode: { GRID: 'grid', LIST: 'list' },
    Feature: { NAV_HIDDEN: 'navHidden', MULTISELECT_ENABLED: 'multiselectEnabled' },
    Action: { CANCEL: 'cancel', PICKED: 'picked', ERROR: 'error' },
    Response: { ACTION: 'action', DOCUMENTS: 'docs', PARENTS: 'parents', VIEW: 'viewToken' },
    Document: { ID: 'id', NAME: 'name', MIME_TYPE: 'mimeType', URL: 'url', SIZE_BYTES: 'sizeBytes', LAST_EDITED_UTC: 'lastEditedUtc', SERVICE_ID: 'serviceId', TYPE: 'type' },
  };
  function DocsView(viewId) { this.viewId = viewId || 'all'; this.mimeTypes = viewId === 'pdfs' ? 'application/pdf' : null; }
  DocsView.prototype.setMimeTypes = function (m) { this.mimeTypes = m; return this; };
  DocsView.prototype.setMode = function () { return this; };
  DocsView.prototype.setOwnedByMe = function () { return this; };
  picker.DocsView = DocsView;
  function PickerBuilder() { this.cfg = { views: [] }; }
  ['setOAuthToken', 'setDeveloperKey', 'setAppId', 'setOrigin', 'setCallback', 'setTitle', 'setLocale'].forEach(function (m) {
    PickerBuilder.prototype[m] = function (v) { this.cfg[m] = v; return this; };
  });
  PickerBuilder.prototype.addView = function (v) { this.cfg.views.push(typeof v === 'string' ? new DocsView(v) : v); return this; };
  PickerBuilder.prototype.enableFeature = function () { return this; };
  PickerBuilder.prototype.hideTitleBar = function () { return this; };
  PickerBuilder.prototype.setSize = function (w, h) { this.cfg.size = [w, h]; return this; };
  PickerBuilder.prototype.build = function () {
    var cfg = this.cfg;
    if (!cfg.setOAuthToken || !cfg.setDeveloperKey) throw new Error('Picker: an OAuth token and a developer key are required');
    return {
      setVisible: function (on) {
        if (!on) return;
        var view = cfg.views[0] || new DocsView('all');
        var box = document.createElement('div');
        box.id = 'picker-standin';
        box.setAttribute('role', 'dialog');
        box.style.cssText = 'position:fixed;inset:8px;background:#fff;border:1px solid #ccc;box-shadow:0 4px 16px rgba(0,0,0,.2);font:13px Arial;padding:12px;overflow:auto';
        box.innerHTML = '<div style="font-size:16px;margin-bottom:8px">Google Drive (stand-in)</div><ul id="picker-files" style="list-style:none;padding:0"></ul><button id="picker-standin-cancel">Cancel</button>';
        document.body.appendChild(box);
        box.querySelector('#picker-standin-cancel').onclick = function () { box.remove(); cfg.setCallback({ action: 'cancel' }); };
        window.__pickerFiles(cfg.setOAuthToken, view.mimeTypes).then(function (files) {
          files.forEach(function (f) {
            var li = document.createElement('li');
            li.innerHTML = '<a href="#" data-id="' + f.id + '" style="display:block;padding:6px 0">' + f.name + '</a>';
            li.firstChild.onclick = function (ev) {
              ev.preventDefault();
              window.__pickerGrant(cfg.setOAuthToken, cfg.setAppId || null, f.id).then(function () {
                box.remove();
                var doc = { id: f.id, name: f.name, mimeType: f.mimeType, url: 'https://drive.google.com/file/d/' + f.id + '/view?usp=drive_web', sizeBytes: f.sizeBytes, lastEditedUtc: Date.now(), serviceId: 'docs', type: 'document' };
                cfg.setCallback({ action: 'picked', viewToken: [view.viewId, null, {}], docs: [doc] });
              });
            };
            box.querySelector('#picker-files').appendChild(li);
          });
        });
      },
    };
  };
  picker.PickerBuilder = PickerBuilder;
  window.google = window.google || {};
  window.google.picker = picker;
  window.gapi = { load: function (name, opts) { setTimeout(function () { (opts.callback || opts)(); }, 0); } };
  var m = /[?&]onload=([\w$]+)/.exec((document.currentScript && document.currentScript.src) || '');
  if (m && typeof window[m[1]] === 'function') setTimeout(window[m[1]], 0);
})();

// Served in place of https://apis.google.com/js/api.js in the Chromium tests: gapi.load and the
// parts of google.picker the add-on uses, with the real API's names and callback shape (Picker
// reference: PickerBuilder, DocsView, ViewId, Feature, Action, Response, Document; ResponseObject).
// It lists the token owner's Drive files of the view's type and, on a pick, grants the app
// drive.file access to each picked file only when setAppId named the project (as the Picker does),
// through the test's bridge functions __pickerFiles(token, mimeType) and __pickerGrant(token, appId, fileId).
// Rules kept as the reference states them:
// - without Feature.MULTISELECT_ENABLED ("Allow the user to choose more than one item") a pick is one
//   file: a click picks it;
// - with it, a click selects or unselects a file and "Select" picks the selection; setMaxItems(max)
//   ("Sets the maximum number of items a user can pick"): a file past `max` is not selected, so the
//   callback never carries more than `max` documents;
// - only picked files are granted: a listed file not picked stays unreadable to the app (drive.file).
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
  function PickerBuilder() { this.cfg = { views: [], features: {}, maxItems: null }; }
  ['setOAuthToken', 'setDeveloperKey', 'setAppId', 'setOrigin', 'setCallback', 'setTitle', 'setLocale'].forEach(function (m) {
    PickerBuilder.prototype[m] = function (v) { this.cfg[m] = v; return this; };
  });
  PickerBuilder.prototype.addView = function (v) { this.cfg.views.push(typeof v === 'string' ? new DocsView(v) : v); return this; };
  PickerBuilder.prototype.enableFeature = function (f) { this.cfg.features[f] = true; return this; };
  PickerBuilder.prototype.disableFeature = function (f) { delete this.cfg.features[f]; return this; };
  PickerBuilder.prototype.setMaxItems = function (n) {
    if (typeof n !== 'number' || n < 1 || Math.floor(n) !== n) throw new Error('Picker: setMaxItems takes a whole number of at least 1');
    this.cfg.maxItems = n;
    return this;
  };
  PickerBuilder.prototype.hideTitleBar = function () { return this; };
  PickerBuilder.prototype.setSize = function (w, h) { this.cfg.size = [w, h]; return this; };
  PickerBuilder.prototype.build = function () {
    var cfg = this.cfg;
    if (!cfg.setOAuthToken || !cfg.setDeveloperKey) throw new Error('Picker: an OAuth token and a developer key are required');
    var multi = !!cfg.features[picker.Feature.MULTISELECT_ENABLED];
    // One file unless MULTISELECT_ENABLED; with it, setMaxItems or no bound.
    var max = multi ? cfg.maxItems || Infinity : 1;
    return {
      setVisible: function (on) {
        if (!on) return;
        var view = cfg.views[0] || new DocsView('all');
        var box = document.createElement('div');
        var selected = [];
        box.id = 'picker-standin';
        box.setAttribute('role', 'dialog');
        box.style.cssText = 'position:fixed;inset:8px;background:#fff;border:1px solid #ccc;box-shadow:0 4px 16px rgba(0,0,0,.2);font:13px Arial;padding:12px;overflow:auto';
        box.innerHTML = '<div style="font-size:16px;margin-bottom:8px">Google Drive (stand-in)</div><ul id="picker-files" style="list-style:none;padding:0"></ul>' +
          '<div id="picker-standin-note" style="color:#b3261e;min-height:16px"></div>' +
          (multi ? '<button id="picker-standin-select" disabled>Select</button> ' : '') + '<button id="picker-standin-cancel">Cancel</button>';
        document.body.appendChild(box);
        box.querySelector('#picker-standin-cancel').onclick = function () { box.remove(); cfg.setCallback({ action: 'cancel' }); };
        function pick(files) {
          // Each picked file is granted before the callback, as the Picker does; nothing else is.
          Promise.all(files.map(function (f) { return window.__pickerGrant(cfg.setOAuthToken, cfg.setAppId || null, f.id); })).then(function () {
            box.remove();
            var docs = files.map(function (f) {
              return { id: f.id, name: f.name, mimeType: f.mimeType, url: 'https://drive.google.com/file/d/' + f.id + '/view?usp=drive_web', sizeBytes: f.sizeBytes, lastEditedUtc: Date.now(), serviceId: 'docs', type: 'document' };
            });
            cfg.setCallback({ action: 'picked', viewToken: [view.viewId, null, {}], docs: docs });
          });
        }
        if (multi) box.querySelector('#picker-standin-select').onclick = function () { if (selected.length) pick(selected.slice(0, max)); };
        window.__pickerFiles(cfg.setOAuthToken, view.mimeTypes).then(function (files) {
          files.forEach(function (f) {
            var li = document.createElement('li');
            li.innerHTML = '<a href="#" data-id="' + f.id + '" aria-pressed="false" style="display:block;padding:6px 0">' + f.name + '</a>';
            var a = li.firstChild;
            a.onclick = function (ev) {
              ev.preventDefault();
              if (!multi) return pick([f]);
              var at = selected.indexOf(f);
              var note = box.querySelector('#picker-standin-note');
              note.textContent = '';
              if (at >= 0) selected.splice(at, 1);
              else if (selected.length >= max) { note.textContent = 'You can select up to ' + max + ' items.'; return; }
              else selected.push(f);
              a.setAttribute('aria-pressed', String(at < 0));
              a.style.background = at < 0 ? '#e8f0fe' : '';
              box.querySelector('#picker-standin-select').disabled = selected.length === 0;
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

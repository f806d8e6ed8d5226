/**
 * Schema migrations for the SQLite store, applied in order inside one transaction each and
 * recorded in `schema_migrations`. Append only: never edit a migration that has shipped.
 */
import type { Migration } from '../migration.js';

export const MIGRATIONS: Migration[] = [
  {
    id: 1,
    name: 'keys-credits-idempotency',
    sql: `
      CREATE TABLE meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
      INSERT INTO meta (name, value) VALUES ('insurers_version', 0);

      CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        lookup TEXT NOT NULL UNIQUE,
        hash TEXT NOT NULL,
        name TEXT NOT NULL,
        email TEXT,
        mode TEXT NOT NULL CHECK (mode IN ('live', 'test')),
        plan TEXT NOT NULL,
        scopes TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'revoked', 'deactivated')),
        allowance INTEGER NOT NULL CHECK (allowance >= 0),
        balance INTEGER NOT NULL CHECK (balance >= 0),
        period TEXT NOT NULL,
        created_at TEXT NOT NULL,
        last_used_at TEXT,
        revoked_at TEXT
      );

      CREATE TABLE credit_ledger (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        key_id TEXT NOT NULL REFERENCES api_keys(id),
        delta INTEGER NOT NULL,
        reason TEXT NOT NULL,
        ref TEXT,
        balance_after INTEGER NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE INDEX credit_ledger_key ON credit_ledger (key_id, id);

      CREATE TABLE idempotency (
        key_id TEXT NOT NULL,
        idem_key TEXT NOT NULL,
        request_hash TEXT NOT NULL,
        status INTEGER,
        body TEXT,
        created_at TEXT NOT NULL,
        completed_at TEXT,
        PRIMARY KEY (key_id, idem_key)
      );
    `,
  },
  {
    id: 2,
    name: 'register-registry-sanctions',
    sql: `
      CREATE TABLE insurers (
        country TEXT NOT NULL,
        reference TEXT NOT NULL,
        scheme TEXT NOT NULL,
        name TEXT NOT NULL,
        aliases TEXT NOT NULL,
        regulated TEXT NOT NULL,
        authorised INTEGER NOT NULL,
        lei TEXT,
        source TEXT NOT NULL,
        source_detail TEXT,
        demo INTEGER NOT NULL,
        priority INTEGER NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (country, reference)
      );

      CREATE TABLE registry_policies (
        country TEXT NOT NULL,
        policy_number TEXT NOT NULL,
        insurance_type TEXT NOT NULL,
        insurer_reference TEXT,
        start_date TEXT,
        end_date TEXT,
        status TEXT NOT NULL,
        vehicle_registration TEXT,
        source TEXT NOT NULL,
        demo INTEGER NOT NULL,
        PRIMARY KEY (country, policy_number, insurance_type)
      );

      CREATE TABLE registry_coverage (
        country TEXT NOT NULL,
        insurance_type TEXT NOT NULL,
        source TEXT NOT NULL,
        demo INTEGER NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (country, insurance_type)
      );

      CREATE TABLE sanctions (
        list TEXT NOT NULL,
        name TEXT NOT NULL,
        country TEXT,
        reference TEXT,
        demo INTEGER NOT NULL
      );
      CREATE INDEX sanctions_list ON sanctions (list);
    `,
  },
  {
    id: 3,
    name: 'jobs-batches-webhook-outbox',
    sql: `
      ALTER TABLE api_keys ADD COLUMN webhook_secret TEXT;

      CREATE TABLE jobs (
        id TEXT PRIMARY KEY,
        key_id TEXT NOT NULL REFERENCES api_keys(id),
        kind TEXT NOT NULL CHECK (kind IN ('verification', 'extraction')),
        status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'complete', 'failed')),
        payload TEXT NOT NULL,
        result TEXT,
        error TEXT,
        webhook_url TEXT,
        document_outcome TEXT,
        sheet_target TEXT,
        reserved INTEGER NOT NULL DEFAULT 0,
        charged INTEGER NOT NULL DEFAULT 0,
        attempts INTEGER NOT NULL DEFAULT 0,
        lease_owner TEXT,
        lease_until TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        completed_at TEXT
      );
      -- Open work only, oldest first: leasing walks it and skips rows leased by a live worker.
      CREATE INDEX jobs_open ON jobs (created_at, id) WHERE status = 'pending';

      CREATE TABLE job_documents (
        job_id TEXT PRIMARY KEY REFERENCES jobs(id),
        content BLOB NOT NULL
      );

      CREATE TABLE batches (
        id TEXT PRIMARY KEY,
        key_id TEXT NOT NULL REFERENCES api_keys(id),
        status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'processing', 'complete')),
        total_count INTEGER NOT NULL,
        completed_count INTEGER NOT NULL DEFAULT 0,
        webhook_url TEXT,
        sheet_target TEXT,
        attempts INTEGER NOT NULL DEFAULT 0,
        lease_owner TEXT,
        lease_until TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        completed_at TEXT
      );
      CREATE INDEX batches_open ON batches (created_at, id) WHERE status != 'complete';

      CREATE TABLE batch_items (
        batch_id TEXT NOT NULL REFERENCES batches(id),
        idx INTEGER NOT NULL,
        policy_number TEXT,
        input TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('pending', 'done')),
        result TEXT,
        error TEXT,
        reserved INTEGER NOT NULL DEFAULT 0,
        charged INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (batch_id, idx)
      );

      CREATE TABLE webhook_outbox (
        id TEXT PRIMARY KEY,
        key_id TEXT NOT NULL REFERENCES api_keys(id),
        url TEXT NOT NULL,
        event_type TEXT NOT NULL,
        subject_id TEXT NOT NULL,
        body TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at TEXT NOT NULL,
        lease_until TEXT,
        last_status INTEGER,
        last_error TEXT,
        created_at TEXT NOT NULL,
        delivered_at TEXT
      );
      CREATE INDEX webhook_outbox_due ON webhook_outbox (status, next_attempt_at);
      CREATE INDEX webhook_outbox_key ON webhook_outbox (key_id, created_at);

      CREATE TABLE webhook_attempts (
        delivery_id TEXT NOT NULL REFERENCES webhook_outbox(id),
        attempt INTEGER NOT NULL,
        at TEXT NOT NULL,
        status INTEGER,
        error TEXT,
        duration_ms INTEGER NOT NULL,
        PRIMARY KEY (delivery_id, attempt)
      );
    `,
  },
  {
    id: 4,
    name: 'datasets',
    sql: `
      CREATE TABLE datasets (
        slug TEXT PRIMARY KEY,
        title TEXT NOT NULL,
        description TEXT NOT NULL,
        category TEXT NOT NULL,
        source TEXT NOT NULL,
        source_url TEXT NOT NULL,
        licence TEXT,
        cadence TEXT NOT NULL CHECK (cadence IN ('daily', 'weekly', 'monthly', 'quarterly')),
        unit TEXT NOT NULL,
        refresh TEXT,
        first_date TEXT,
        last_date TEXT,
        point_count INTEGER NOT NULL DEFAULT 0,
        last_refreshed_at TEXT,
        last_refresh_attempt_at TEXT,
        last_refresh_error TEXT,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX datasets_title ON datasets (title COLLATE NOCASE, slug);

      -- Clustered by (slug, date): a latest-N read is one index range scan.
      CREATE TABLE dataset_points (
        slug TEXT NOT NULL,
        date TEXT NOT NULL,
        value REAL NOT NULL,
        PRIMARY KEY (slug, date)
      ) WITHOUT ROWID;

      -- Every search term is a prefix query ("clai" finds claims): prefix indexes keep those cheap.
      CREATE VIRTUAL TABLE datasets_fts USING fts5(slug UNINDEXED, title, description, category, source, tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3 4');
    `,
  },
  {
    id: 5,
    name: 'sheets-writeback-and-schedules',
    sql: `
      CREATE TABLE sheet_writebacks (
        id TEXT PRIMARY KEY,
        key_id TEXT NOT NULL REFERENCES api_keys(id),
        subject_type TEXT NOT NULL CHECK (subject_type IN ('job', 'batch')),
        subject_id TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('verification', 'extraction')),
        spreadsheet_id TEXT NOT NULL,
        target TEXT NOT NULL,
        rows TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'written', 'failed')),
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at TEXT NOT NULL,
        lease_until TEXT,
        written INTEGER NOT NULL DEFAULT 0,
        missing TEXT NOT NULL DEFAULT '[]',
        last_error TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX sheet_writebacks_open ON sheet_writebacks (next_attempt_at, id) WHERE status = 'pending';
      CREATE INDEX sheet_writebacks_subject ON sheet_writebacks (subject_id);

      CREATE TABLE sheet_schedules (
        id TEXT PRIMARY KEY,
        key_id TEXT NOT NULL REFERENCES api_keys(id),
        dataset TEXT NOT NULL,
        spreadsheet_id TEXT NOT NULL,
        sheet_name TEXT NOT NULL,
        cadence TEXT NOT NULL CHECK (cadence IN ('hourly', 'daily', 'weekly')),
        point_limit INTEGER NOT NULL,
        next_run_at TEXT NOT NULL,
        running_until TEXT,
        created_at TEXT NOT NULL
      );
      CREATE INDEX sheet_schedules_due ON sheet_schedules (next_run_at);

      CREATE TABLE sheet_schedule_runs (
        schedule_id TEXT NOT NULL,
        started_at TEXT NOT NULL,
        finished_at TEXT,
        status TEXT NOT NULL,
        rows INTEGER,
        error TEXT
      );
      CREATE INDEX sheet_schedule_runs_schedule ON sheet_schedule_runs (schedule_id, started_at);
    `,
  },
  {
    id: 6,
    name: 'key portal: e-mail activation requests, deactivation time of unused keys',
    sql: `
      -- One row per e-mailed activation link. Only the SHA-256 of the link's token is stored; the key
      -- itself is minted at activation, so it never exists before and is never stored in clear.
      CREATE TABLE portal_key_requests (
        id TEXT PRIMARY KEY,
        email TEXT NOT NULL,
        mode TEXT NOT NULL CHECK (mode IN ('live', 'test')),
        token_hash TEXT NOT NULL UNIQUE,
        created_at TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        used_at TEXT,
        key_id TEXT REFERENCES api_keys(id)
      );
      CREATE INDEX portal_key_requests_expiry ON portal_key_requests (expires_at);

      ALTER TABLE api_keys ADD COLUMN deactivated_at TEXT;
      CREATE INDEX api_keys_unused_free ON api_keys (created_at) WHERE plan = 'free' AND status = 'active' AND last_used_at IS NULL;
    `,
  },
  {
    id: 7,
    name: 'jobs remember the worker that finished them',
    sql: `ALTER TABLE jobs ADD COLUMN finished_by TEXT;`,
  },
  {
    id: 8,
    name: 'registry coverage remembers whether a demo source covers it (what sandbox keys see)',
    sql: `
      -- Coverage that is demo now was demo-covered; real coverage that replaced demo coverage
      -- gets it back from the demo load every start makes (demo/seed.ts).
      ALTER TABLE registry_coverage ADD COLUMN demo_covered INTEGER NOT NULL DEFAULT 0;
      UPDATE registry_coverage SET demo_covered = demo;
    `,
  },
  {
    id: 9,
    name: 'sheet bindings: which key may write into which spreadsheet',
    sql: `
      -- Only the SHA-256 of a binding token is kept; checked_at orders concurrent checks so a slow,
      -- stale answer never overwrites a later one.
      CREATE TABLE sheet_bindings (
        id TEXT PRIMARY KEY,
        key_id TEXT NOT NULL REFERENCES api_keys(id),
        spreadsheet_id TEXT NOT NULL,
        token_hash TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('pending', 'active')),
        created_at TEXT NOT NULL,
        verified_at TEXT,
        checked_at TEXT,
        UNIQUE (key_id, spreadsheet_id)
      );
    `,
  },
  {
    id: 10,
    name: 'sheet schedules: failed runs in a row, and auto-pause',
    sql: `
      ALTER TABLE sheet_schedules ADD COLUMN failures_in_row INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE sheet_schedules ADD COLUMN paused_at TEXT;
      ALTER TABLE sheet_schedules ADD COLUMN paused_reason TEXT;
    `,
  },
  {
    id: 11,
    name: 'sheet schedules: output mode (overwrite, append, merge)',
    sql: `
      -- Schedules made before modes existed overwrote: they keep doing so.
      ALTER TABLE sheet_schedules ADD COLUMN output_mode TEXT NOT NULL DEFAULT 'overwrite' CHECK (output_mode IN ('overwrite', 'append', 'merge'));
    `,
  },
  {
    id: 12,
    name: 'sheet write-backs: lease owner (a lease is renewed while its holder works; only the holder finishes)',
    sql: `
      -- A lease taken before this migration has no owner: it runs out and is taken again, as before.
      ALTER TABLE sheet_writebacks ADD COLUMN lease_owner TEXT;
    `,
  },
  {
    id: 13,
    name: 'insurers: kind (insurer or intermediary) and the register status as the source words it',
    sql: `
      -- Rows loaded before this were all insurers; the status wording comes with the next seed or import.
      ALTER TABLE insurers ADD COLUMN kind TEXT NOT NULL DEFAULT 'insurer' CHECK (kind IN ('insurer', 'intermediary'));
      ALTER TABLE insurers ADD COLUMN status_text TEXT;
    `,
  },
  {
    id: 14,
    name: 'registry policies: a demo row and a real row of the same number live side by side',
    sql: `
      -- Before, the start-up demo seed overwrote an operator's real row of the same number (and an import
      -- the demo row): with live keys on real rows only and sandbox keys on demo rows only, each keeps its own.
      CREATE TABLE registry_policies_by_kind (
        country TEXT NOT NULL,
        policy_number TEXT NOT NULL,
        insurance_type TEXT NOT NULL,
        insurer_reference TEXT,
        start_date TEXT,
        end_date TEXT,
        status TEXT NOT NULL,
        vehicle_registration TEXT,
        source TEXT NOT NULL,
        demo INTEGER NOT NULL,
        PRIMARY KEY (country, policy_number, insurance_type, demo)
      );
      INSERT INTO registry_policies_by_kind SELECT country, policy_number, insurance_type, insurer_reference, start_date, end_date, status, vehicle_registration, source, demo FROM registry_policies;
      DROP TABLE registry_policies;
      ALTER TABLE registry_policies_by_kind RENAME TO registry_policies;
    `,
  },
  {
    id: 15,
    name: 'bytes of documents each key holds, for its storage quota',
    sql: `
      -- Kept with every stored document (and, with retention, every removed one), so the quota
      -- check reads one row instead of adding up a key's documents.
      CREATE TABLE key_document_bytes (
        key_id TEXT PRIMARY KEY REFERENCES api_keys(id),
        bytes INTEGER NOT NULL
      );
      INSERT INTO key_document_bytes (key_id, bytes)
        SELECT j.key_id, sum(length(d.content)) FROM job_documents d JOIN jobs j ON j.id = d.job_id GROUP BY j.key_id;
    `,
  },
  {
    id: 16,
    name: 'retention: finished work by age, expired jobs and batches remembered without their content',
    sql: `
      -- Retention walks finished work oldest first, and removes deliveries and claims by their subject or age.
      CREATE INDEX jobs_finished ON jobs (completed_at) WHERE status != 'pending';
      CREATE INDEX batches_finished ON batches (completed_at) WHERE status = 'complete';
      CREATE INDEX webhook_outbox_subject ON webhook_outbox (subject_id);
      CREATE INDEX idempotency_age ON idempotency (created_at);
      -- A removed job or batch, so its key hears "expired" rather than "not found"; no content.
      CREATE TABLE expired_work (
        id TEXT PRIMARY KEY,
        key_id TEXT NOT NULL REFERENCES api_keys(id),
        kind TEXT NOT NULL CHECK (kind IN ('job', 'batch')),
        finished_at TEXT NOT NULL,
        expired_at TEXT NOT NULL
      );
      CREATE INDEX expired_work_age ON expired_work (expired_at);
    `,
  },
  {
    id: 17,
    name: 'result history: every verification result a key was given',
    sql: `
      -- Written once, never updated; read by key newest first, by (created_at, id) so a cursor survives inserts.
      -- A sync verification writes a row, so every index is a page more in its commit: none on id alone
      -- (the connector makes ids, time-ordered UUIDs, and never looks one up by itself) and none on age
      -- (retention walks each key's time index).
      CREATE TABLE verifications (
        id TEXT NOT NULL,
        key_id TEXT NOT NULL REFERENCES api_keys(id),
        source TEXT NOT NULL CHECK (source IN ('sync', 'async', 'batch', 'watch')),
        source_id TEXT,
        policy_number TEXT NOT NULL,
        country TEXT NOT NULL,
        insurance_type TEXT NOT NULL,
        status TEXT NOT NULL,
        confidence REAL NOT NULL,
        checks TEXT NOT NULL,
        input TEXT NOT NULL,
        result TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE INDEX verifications_key_time ON verifications (key_id, created_at, id);
      CREATE INDEX verifications_key_policy ON verifications (key_id, policy_number, created_at, id);
      -- A job's erasure and a watch's filter find their entries; sync entries (no source id) stay out of it.
      CREATE INDEX verifications_source ON verifications (source_id) WHERE source_id IS NOT NULL;
    `,
  },
  {
    id: 18,
    name: 'watches: policies re-verified on a cadence, their runs, changes and e-mail digests',
    sql: `
      CREATE TABLE watches (
        id TEXT PRIMARY KEY,
        key_id TEXT NOT NULL REFERENCES api_keys(id),
        cadence TEXT NOT NULL CHECK (cadence IN ('daily', 'weekly')),
        expiry_window_days INTEGER NOT NULL,
        webhook_url TEXT,
        email_to TEXT,
        sheet_target TEXT,
        notify_unchanged INTEGER NOT NULL,
        policy_count INTEGER NOT NULL,
        next_run_at TEXT NOT NULL,
        recheck_at TEXT,
        paused_at TEXT,
        run_id TEXT,
        lease_owner TEXT,
        lease_until TEXT,
        created_at TEXT NOT NULL
      );
      CREATE INDEX watches_key ON watches (key_id, created_at, id);
      CREATE TABLE watch_items (
        watch_id TEXT NOT NULL REFERENCES watches(id),
        idx INTEGER NOT NULL,
        policy_number TEXT NOT NULL,
        input TEXT NOT NULL,
        last_state TEXT,
        probe TEXT,
        run_id TEXT,
        reserved INTEGER NOT NULL DEFAULT 0,
        recheck INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (watch_id, idx)
      );
      -- A run reads the policies it still has to check; a re-check run the marked ones.
      CREATE INDEX watch_items_run ON watch_items (watch_id, run_id, idx) WHERE run_id IS NOT NULL;
      CREATE INDEX watch_items_recheck ON watch_items (watch_id, idx) WHERE recheck = 1;
      CREATE TABLE watch_runs (
        id TEXT PRIMARY KEY,
        watch_id TEXT NOT NULL REFERENCES watches(id),
        trigger_kind TEXT NOT NULL CHECK (trigger_kind IN ('schedule', 'register_change')),
        status TEXT NOT NULL CHECK (status IN ('running', 'complete', 'stopped')),
        stop_reason TEXT,
        started_at TEXT NOT NULL,
        finished_at TEXT,
        total INTEGER NOT NULL,
        checked INTEGER NOT NULL DEFAULT 0,
        changed INTEGER NOT NULL DEFAULT 0,
        credits INTEGER NOT NULL DEFAULT 0
      );
      CREATE INDEX watch_runs_watch ON watch_runs (watch_id, started_at);
      CREATE TABLE watch_changes (
        run_id TEXT NOT NULL REFERENCES watch_runs(id),
        idx INTEGER NOT NULL,
        policy_number TEXT NOT NULL,
        before_state TEXT NOT NULL,
        after_state TEXT NOT NULL,
        reasons TEXT NOT NULL,
        why TEXT NOT NULL,
        PRIMARY KEY (run_id, idx)
      );
      CREATE TABLE watch_mails (
        id TEXT PRIMARY KEY,
        key_id TEXT NOT NULL REFERENCES api_keys(id),
        watch_id TEXT NOT NULL,
        run_id TEXT NOT NULL,
        to_address TEXT NOT NULL,
        subject TEXT NOT NULL,
        text TEXT NOT NULL,
        html TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed')),
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at TEXT NOT NULL,
        lease_until TEXT,
        last_error TEXT,
        created_at TEXT NOT NULL,
        sent_at TEXT
      );
      CREATE INDEX watch_mails_due ON watch_mails (next_attempt_at, id) WHERE status = 'pending';
      CREATE INDEX watch_mails_run ON watch_mails (run_id);
      -- The reference-data version the last re-check scan saw (watches/register-rechecks.ts).
      INSERT INTO meta (name, value) VALUES ('watches_reference_version', -1);
      -- Write-backs of watch runs: the changed rows' status cells, and the lines appended to the Changes sheet.
      CREATE TABLE sheet_writebacks_with_watches (
        id TEXT PRIMARY KEY,
        key_id TEXT NOT NULL REFERENCES api_keys(id),
        subject_type TEXT NOT NULL CHECK (subject_type IN ('job', 'batch', 'watch_run')),
        subject_id TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('verification', 'extraction', 'changes')),
        spreadsheet_id TEXT NOT NULL,
        target TEXT NOT NULL,
        rows TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'written', 'failed')),
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at TEXT NOT NULL,
        lease_until TEXT,
        written INTEGER NOT NULL DEFAULT 0,
        missing TEXT NOT NULL DEFAULT '[]',
        last_error TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        lease_owner TEXT
      );
      INSERT INTO sheet_writebacks_with_watches (id, key_id, subject_type, subject_id, kind, spreadsheet_id, target, rows, status, attempts,
          next_attempt_at, lease_until, written, missing, last_error, created_at, updated_at, lease_owner)
        SELECT id, key_id, subject_type, subject_id, kind, spreadsheet_id, target, rows, status, attempts,
          next_attempt_at, lease_until, written, missing, last_error, created_at, updated_at, lease_owner FROM sheet_writebacks;
      DROP TABLE sheet_writebacks;
      ALTER TABLE sheet_writebacks_with_watches RENAME TO sheet_writebacks;
      CREATE INDEX sheet_writebacks_open ON sheet_writebacks (next_attempt_at, id) WHERE status = 'pending';
      CREATE INDEX sheet_writebacks_subject ON sheet_writebacks (subject_id);
    `,
  },
];

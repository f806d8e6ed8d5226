/**
 * Schema migrations for the PostgreSQL store, applied in order in one transaction (under an advisory
 * lock, see db.ts) and recorded in `schema_migrations`. Append only: never edit a migration that has shipped.
 *
 * Migration 1 is the schema SQLite reached in its migrations 1-6, written for PostgreSQL: real
 * timestamps (timestamptz), dates, booleans, jsonb and arrays where SQLite keeps text; a tsvector
 * column instead of the FTS5 table. The row mappers turn them back into the interface's shapes.
 */
import type { Migration } from '../migration.js';

export const PG_MIGRATIONS: Migration[] = [
  {
    id: 1,
    name: 'initial schema (SQLite migrations 1-6)',
    sql: `
      CREATE TABLE meta (name text PRIMARY KEY, value bigint NOT NULL);
      INSERT INTO meta (name, value) VALUES ('insurers_version', 0);

      CREATE TABLE api_keys (
        id text PRIMARY KEY,
        lookup text NOT NULL UNIQUE,
        hash text NOT NULL,
        name text NOT NULL,
        email text,
        mode text NOT NULL CHECK (mode IN ('live', 'test')),
        plan text NOT NULL,
        scopes text[] NOT NULL,
        status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'revoked', 'deactivated')),
        allowance integer NOT NULL CHECK (allowance >= 0),
        balance integer NOT NULL CHECK (balance >= 0),
        period text NOT NULL,
        created_at timestamptz NOT NULL,
        last_used_at timestamptz,
        revoked_at timestamptz,
        deactivated_at timestamptz,
        webhook_secret text
      );
      CREATE INDEX api_keys_unused_free ON api_keys (created_at) WHERE plan = 'free' AND status = 'active' AND last_used_at IS NULL;

      CREATE TABLE credit_ledger (
        id bigserial PRIMARY KEY,
        key_id text NOT NULL REFERENCES api_keys(id),
        delta integer NOT NULL,
        reason text NOT NULL,
        ref text,
        balance_after integer NOT NULL,
        created_at timestamptz NOT NULL
      );
      CREATE INDEX credit_ledger_key ON credit_ledger (key_id, id);

      CREATE TABLE idempotency (
        key_id text NOT NULL,
        idem_key text NOT NULL,
        request_hash text NOT NULL,
        status integer,
        body text,
        created_at timestamptz NOT NULL,
        completed_at timestamptz,
        PRIMARY KEY (key_id, idem_key)
      );

      CREATE TABLE insurers (
        country text NOT NULL,
        reference text NOT NULL,
        scheme text NOT NULL,
        name text NOT NULL,
        aliases jsonb NOT NULL,
        regulated text NOT NULL,
        authorised boolean NOT NULL,
        lei text,
        source text NOT NULL,
        source_detail text,
        demo boolean NOT NULL,
        priority integer NOT NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (country, reference)
      );

      CREATE TABLE registry_policies (
        country text NOT NULL,
        policy_number text NOT NULL,
        insurance_type text NOT NULL,
        insurer_reference text,
        start_date date,
        end_date date,
        status text NOT NULL,
        vehicle_registration text,
        source text NOT NULL,
        demo boolean NOT NULL,
        PRIMARY KEY (country, policy_number, insurance_type)
      );

      CREATE TABLE registry_coverage (
        country text NOT NULL,
        insurance_type text NOT NULL,
        source text NOT NULL,
        demo boolean NOT NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (country, insurance_type)
      );

      CREATE TABLE sanctions (
        id bigserial PRIMARY KEY,
        list text NOT NULL,
        name text NOT NULL,
        country text,
        reference text,
        demo boolean NOT NULL
      );
      CREATE INDEX sanctions_list ON sanctions (list);

      CREATE TABLE jobs (
        id text PRIMARY KEY,
        key_id text NOT NULL REFERENCES api_keys(id),
        kind text NOT NULL CHECK (kind IN ('verification', 'extraction')),
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'complete', 'failed')),
        payload text NOT NULL,
        result text,
        error text,
        webhook_url text,
        document_outcome text,
        sheet_target text,
        reserved integer NOT NULL DEFAULT 0,
        charged integer NOT NULL DEFAULT 0,
        attempts integer NOT NULL DEFAULT 0,
        lease_owner text,
        lease_until timestamptz,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        completed_at timestamptz
      );
      -- Open work only, oldest first: leasing walks it with FOR UPDATE SKIP LOCKED.
      CREATE INDEX jobs_open ON jobs (created_at, id) WHERE status = 'pending';

      CREATE TABLE job_documents (
        job_id text PRIMARY KEY REFERENCES jobs(id),
        content bytea NOT NULL
      );

      CREATE TABLE batches (
        id text PRIMARY KEY,
        key_id text NOT NULL REFERENCES api_keys(id),
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'processing', 'complete')),
        total_count integer NOT NULL,
        completed_count integer NOT NULL DEFAULT 0,
        webhook_url text,
        sheet_target text,
        attempts integer NOT NULL DEFAULT 0,
        lease_owner text,
        lease_until timestamptz,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        completed_at timestamptz
      );
      CREATE INDEX batches_open ON batches (created_at, id) WHERE status <> 'complete';

      CREATE TABLE batch_items (
        batch_id text NOT NULL REFERENCES batches(id),
        idx integer NOT NULL,
        policy_number text,
        input text NOT NULL,
        state text NOT NULL CHECK (state IN ('pending', 'done')),
        result text,
        error text,
        reserved integer NOT NULL DEFAULT 0,
        charged integer NOT NULL DEFAULT 0,
        PRIMARY KEY (batch_id, idx)
      );

      CREATE TABLE webhook_outbox (
        id text PRIMARY KEY,
        key_id text NOT NULL REFERENCES api_keys(id),
        url text NOT NULL,
        event_type text NOT NULL,
        subject_id text NOT NULL,
        body text NOT NULL,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL,
        lease_until timestamptz,
        last_status integer,
        last_error text,
        created_at timestamptz NOT NULL,
        delivered_at timestamptz
      );
      CREATE INDEX webhook_outbox_due ON webhook_outbox (next_attempt_at, id) WHERE status = 'pending';
      CREATE INDEX webhook_outbox_key ON webhook_outbox (key_id, created_at);
      CREATE INDEX webhook_outbox_subject ON webhook_outbox (subject_id);

      CREATE TABLE webhook_attempts (
        delivery_id text NOT NULL REFERENCES webhook_outbox(id),
        attempt integer NOT NULL,
        at timestamptz NOT NULL,
        status integer,
        error text,
        duration_ms integer NOT NULL,
        PRIMARY KEY (delivery_id, attempt)
      );

      CREATE TABLE datasets (
        slug text PRIMARY KEY,
        title text NOT NULL,
        description text NOT NULL,
        category text NOT NULL,
        source text NOT NULL,
        source_url text NOT NULL,
        licence text,
        cadence text NOT NULL CHECK (cadence IN ('daily', 'weekly', 'monthly', 'quarterly')),
        unit text NOT NULL,
        refresh jsonb,
        first_date date,
        last_date date,
        point_count integer NOT NULL DEFAULT 0,
        last_refreshed_at timestamptz,
        last_refresh_attempt_at timestamptz,
        last_refresh_error text,
        updated_at timestamptz NOT NULL,
        -- Built by the store from accent-folded text (see datasets.ts): title A, category and source B, description C.
        search tsvector NOT NULL
      );
      CREATE INDEX datasets_search ON datasets USING gin (search);
      CREATE INDEX datasets_title ON datasets (lower(title) COLLATE "C", slug);

      CREATE TABLE dataset_points (
        slug text NOT NULL REFERENCES datasets(slug),
        date date NOT NULL,
        value double precision NOT NULL,
        PRIMARY KEY (slug, date)
      );

      CREATE TABLE sheet_writebacks (
        id text PRIMARY KEY,
        key_id text NOT NULL REFERENCES api_keys(id),
        subject_type text NOT NULL CHECK (subject_type IN ('job', 'batch')),
        subject_id text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('verification', 'extraction')),
        spreadsheet_id text NOT NULL,
        target text NOT NULL,
        rows text NOT NULL,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'written', 'failed')),
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL,
        lease_until timestamptz,
        written integer NOT NULL DEFAULT 0,
        missing jsonb NOT NULL DEFAULT '[]',
        last_error text,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      );
      CREATE INDEX sheet_writebacks_open ON sheet_writebacks (next_attempt_at, id) WHERE status = 'pending';
      CREATE INDEX sheet_writebacks_subject ON sheet_writebacks (subject_id);

      CREATE TABLE sheet_schedules (
        id text PRIMARY KEY,
        key_id text NOT NULL REFERENCES api_keys(id),
        dataset text NOT NULL,
        spreadsheet_id text NOT NULL,
        sheet_name text NOT NULL,
        cadence text NOT NULL CHECK (cadence IN ('hourly', 'daily', 'weekly')),
        point_limit integer NOT NULL,
        next_run_at timestamptz NOT NULL,
        running_until timestamptz,
        created_at timestamptz NOT NULL
      );
      CREATE INDEX sheet_schedules_due ON sheet_schedules (next_run_at);

      CREATE TABLE sheet_schedule_runs (
        schedule_id text NOT NULL,
        started_at timestamptz NOT NULL,
        finished_at timestamptz,
        status text NOT NULL,
        rows integer,
        error text
      );
      CREATE INDEX sheet_schedule_runs_schedule ON sheet_schedule_runs (schedule_id, started_at);

      CREATE TABLE portal_key_requests (
        id text PRIMARY KEY,
        email text NOT NULL,
        mode text NOT NULL CHECK (mode IN ('live', 'test')),
        token_hash text NOT NULL UNIQUE,
        created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        used_at timestamptz,
        key_id text REFERENCES api_keys(id)
      );
      CREATE INDEX portal_key_requests_expiry ON portal_key_requests (expires_at);
    `,
  },
  {
    id: 2,
    name: 'credit debit as one server-side function',
    sql: `
      -- Rollover, conditional debit and ledger row in one round trip (a sync verify's charge was
      -- five: BEGIN, two UPDATEs, INSERT, COMMIT). Returns the new balance, or NULL when the balance
      -- does not cover the amount (nothing written then but a due rollover). The UPDATE's row lock
      -- serialises concurrent debits of one key; each re-checks the balance it then sees.
      CREATE FUNCTION covercheck_debit(p_key text, p_amount integer, p_period text, p_reason text, p_ref text, p_at timestamptz)
      RETURNS integer LANGUAGE plpgsql AS $fn$
      DECLARE
        v_balance integer;
      BEGIN
        UPDATE api_keys SET balance = allowance, period = p_period WHERE id = p_key AND period < p_period RETURNING balance INTO v_balance;
        IF FOUND THEN
          INSERT INTO credit_ledger (key_id, delta, reason, ref, balance_after, created_at) VALUES (p_key, 0, 'period_reset', p_period, v_balance, p_at);
        END IF;
        UPDATE api_keys SET balance = balance - p_amount WHERE id = p_key AND balance >= p_amount RETURNING balance INTO v_balance;
        IF NOT FOUND THEN
          RETURN NULL;
        END IF;
        INSERT INTO credit_ledger (key_id, delta, reason, ref, balance_after, created_at) VALUES (p_key, -p_amount, p_reason, p_ref, v_balance, p_at);
        RETURN v_balance;
      END
      $fn$;
    `,
  },
  {
    id: 3,
    name: 'jobs remember the worker that finished them (SQLite migration 7)',
    sql: `ALTER TABLE jobs ADD COLUMN finished_by text;`,
  },
  {
    id: 4,
    name: 'period rollover as its own function, used by covercheck_debit and by balance reads',
    sql: `
      -- The rollover rule lived twice (in covercheck_debit and in the store's balance read); now once.
      CREATE FUNCTION covercheck_rollover(p_key text, p_period text, p_at timestamptz)
      RETURNS void LANGUAGE plpgsql AS $fn$
      DECLARE
        v_balance integer;
      BEGIN
        UPDATE api_keys SET balance = allowance, period = p_period WHERE id = p_key AND period < p_period RETURNING balance INTO v_balance;
        IF FOUND THEN
          INSERT INTO credit_ledger (key_id, delta, reason, ref, balance_after, created_at) VALUES (p_key, 0, 'period_reset', p_period, v_balance, p_at);
        END IF;
      END
      $fn$;

      CREATE OR REPLACE FUNCTION covercheck_debit(p_key text, p_amount integer, p_period text, p_reason text, p_ref text, p_at timestamptz)
      RETURNS integer LANGUAGE plpgsql AS $fn$
      DECLARE
        v_balance integer;
      BEGIN
        PERFORM covercheck_rollover(p_key, p_period, p_at);
        UPDATE api_keys SET balance = balance - p_amount WHERE id = p_key AND balance >= p_amount RETURNING balance INTO v_balance;
        IF NOT FOUND THEN
          RETURN NULL;
        END IF;
        INSERT INTO credit_ledger (key_id, delta, reason, ref, balance_after, created_at) VALUES (p_key, -p_amount, p_reason, p_ref, v_balance, p_at);
        RETURN v_balance;
      END
      $fn$;
    `,
  },
  {
    id: 5,
    name: 'registry coverage remembers whether a demo source covers it (SQLite migration 8)',
    sql: `
      ALTER TABLE registry_coverage ADD COLUMN demo_covered boolean NOT NULL DEFAULT false;
      UPDATE registry_coverage SET demo_covered = demo;
    `,
  },
  {
    id: 6,
    name: 'sheet bindings: which key may write into which spreadsheet (SQLite migration 9)',
    sql: `
      CREATE TABLE sheet_bindings (
        id text PRIMARY KEY,
        key_id text NOT NULL REFERENCES api_keys(id),
        spreadsheet_id text NOT NULL,
        token_hash text NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'active')),
        created_at timestamptz NOT NULL,
        verified_at timestamptz,
        checked_at timestamptz,
        UNIQUE (key_id, spreadsheet_id)
      );
    `,
  },
  {
    id: 7,
    name: 'sheet schedules: failed runs in a row, and auto-pause (SQLite migration 10)',
    sql: `
      ALTER TABLE sheet_schedules ADD COLUMN failures_in_row integer NOT NULL DEFAULT 0;
      ALTER TABLE sheet_schedules ADD COLUMN paused_at timestamptz;
      ALTER TABLE sheet_schedules ADD COLUMN paused_reason text;
    `,
  },
  {
    id: 8,
    name: 'sheet schedules: output mode (SQLite migration 11)',
    sql: `
      ALTER TABLE sheet_schedules ADD COLUMN output_mode text NOT NULL DEFAULT 'overwrite' CHECK (output_mode IN ('overwrite', 'append', 'merge'));
    `,
  },
  {
    id: 9,
    name: 'sheet write-backs: lease owner (SQLite migration 12)',
    sql: `
      ALTER TABLE sheet_writebacks ADD COLUMN lease_owner text;
    `,
  },
  {
    id: 10,
    name: 'insurers: kind and register status wording (SQLite migration 13)',
    sql: `
      ALTER TABLE insurers ADD COLUMN kind text NOT NULL DEFAULT 'insurer' CHECK (kind IN ('insurer', 'intermediary'));
      ALTER TABLE insurers ADD COLUMN status_text text;
    `,
  },
  {
    id: 11,
    name: 'registry policies: demo and real rows of one number side by side (SQLite migration 14)',
    sql: `
      ALTER TABLE registry_policies DROP CONSTRAINT registry_policies_pkey;
      ALTER TABLE registry_policies ADD PRIMARY KEY (country, policy_number, insurance_type, demo);
    `,
  },
  {
    id: 12,
    name: 'bytes of documents each key holds, for its storage quota (SQLite migration 15)',
    sql: `
      CREATE TABLE key_document_bytes (
        key_id text PRIMARY KEY REFERENCES api_keys(id),
        bytes bigint NOT NULL
      );
      INSERT INTO key_document_bytes (key_id, bytes)
        SELECT j.key_id, sum(octet_length(d.content)) FROM job_documents d JOIN jobs j ON j.id = d.job_id GROUP BY j.key_id;
    `,
  },
  {
    id: 13,
    name: 'retention: finished work by age, expired jobs and batches remembered without their content (SQLite migration 16)',
    sql: `
      CREATE INDEX jobs_finished ON jobs (completed_at) WHERE status <> 'pending';
      CREATE INDEX batches_finished ON batches (completed_at) WHERE status = 'complete';
      CREATE INDEX idempotency_age ON idempotency (created_at);
      CREATE TABLE expired_work (
        id text PRIMARY KEY,
        key_id text NOT NULL REFERENCES api_keys(id),
        kind text NOT NULL CHECK (kind IN ('job', 'batch')),
        finished_at timestamptz NOT NULL,
        expired_at timestamptz NOT NULL
      );
      CREATE INDEX expired_work_age ON expired_work (expired_at);
    `,
  },
  {
    id: 14,
    name: 'result history: every verification result a key was given (SQLite migration 17)',
    sql: `
      -- Unlike SQLite's, with a primary key and an age index: here they cost the database server, not
      -- the connector's event loop on every sync verification.
      CREATE TABLE verifications (
        id text PRIMARY KEY,
        key_id text NOT NULL REFERENCES api_keys(id),
        source text NOT NULL CHECK (source IN ('sync', 'async', 'batch', 'watch')),
        source_id text,
        policy_number text NOT NULL,
        country text NOT NULL,
        insurance_type text NOT NULL,
        status text NOT NULL,
        confidence double precision NOT NULL,
        checks text NOT NULL,
        input text NOT NULL,
        result text NOT NULL,
        created_at timestamptz NOT NULL
      );
      CREATE INDEX verifications_key_time ON verifications (key_id, created_at, id);
      CREATE INDEX verifications_key_policy ON verifications (key_id, policy_number, created_at, id);
      CREATE INDEX verifications_source ON verifications (source_id) WHERE source_id IS NOT NULL;
      CREATE INDEX verifications_age ON verifications (created_at);
    `,
  },
  {
    id: 15,
    name: 'watches: policies re-verified on a cadence, their runs, changes and e-mail digests (SQLite migration 18)',
    sql: `
      CREATE TABLE watches (
        id text PRIMARY KEY,
        key_id text NOT NULL REFERENCES api_keys(id),
        cadence text NOT NULL CHECK (cadence IN ('daily', 'weekly')),
        expiry_window_days integer NOT NULL,
        webhook_url text,
        email_to text,
        sheet_target text,
        notify_unchanged boolean NOT NULL,
        policy_count integer NOT NULL,
        next_run_at timestamptz NOT NULL,
        recheck_at timestamptz,
        paused_at timestamptz,
        run_id text,
        lease_owner text,
        lease_until timestamptz,
        created_at timestamptz NOT NULL
      );
      CREATE INDEX watches_key ON watches (key_id, created_at, id);
      CREATE TABLE watch_items (
        watch_id text NOT NULL REFERENCES watches(id),
        idx integer NOT NULL,
        policy_number text NOT NULL,
        input text NOT NULL,
        last_state text,
        probe text,
        run_id text,
        reserved integer NOT NULL DEFAULT 0,
        recheck boolean NOT NULL DEFAULT false,
        PRIMARY KEY (watch_id, idx)
      );
      CREATE INDEX watch_items_run ON watch_items (watch_id, run_id, idx) WHERE run_id IS NOT NULL;
      CREATE INDEX watch_items_recheck ON watch_items (watch_id, idx) WHERE recheck;
      CREATE TABLE watch_runs (
        id text PRIMARY KEY,
        watch_id text NOT NULL REFERENCES watches(id),
        trigger_kind text NOT NULL CHECK (trigger_kind IN ('schedule', 'register_change')),
        status text NOT NULL CHECK (status IN ('running', 'complete', 'stopped')),
        stop_reason text,
        started_at timestamptz NOT NULL,
        finished_at timestamptz,
        total integer NOT NULL,
        checked integer NOT NULL DEFAULT 0,
        changed integer NOT NULL DEFAULT 0,
        credits integer NOT NULL DEFAULT 0
      );
      CREATE INDEX watch_runs_watch ON watch_runs (watch_id, started_at);
      CREATE TABLE watch_changes (
        run_id text NOT NULL REFERENCES watch_runs(id),
        idx integer NOT NULL,
        policy_number text NOT NULL,
        before_state text NOT NULL,
        after_state text NOT NULL,
        reasons text NOT NULL,
        why text NOT NULL,
        PRIMARY KEY (run_id, idx)
      );
      CREATE TABLE watch_mails (
        id text PRIMARY KEY,
        key_id text NOT NULL REFERENCES api_keys(id),
        watch_id text NOT NULL,
        run_id text NOT NULL,
        to_address text NOT NULL,
        subject text NOT NULL,
        text text NOT NULL,
        html text NOT NULL,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed')),
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL,
        lease_until timestamptz,
        last_error text,
        created_at timestamptz NOT NULL,
        sent_at timestamptz
      );
      CREATE INDEX watch_mails_due ON watch_mails (next_attempt_at, id) WHERE status = 'pending';
      CREATE INDEX watch_mails_run ON watch_mails (run_id);
      INSERT INTO meta (name, value) VALUES ('watches_reference_version', -1);
      ALTER TABLE sheet_writebacks DROP CONSTRAINT sheet_writebacks_subject_type_check,
        ADD CONSTRAINT sheet_writebacks_subject_type_check CHECK (subject_type IN ('job', 'batch', 'watch_run'));
      ALTER TABLE sheet_writebacks DROP CONSTRAINT sheet_writebacks_kind_check,
        ADD CONSTRAINT sheet_writebacks_kind_check CHECK (kind IN ('verification', 'extraction', 'changes'));
    `,
  },
];

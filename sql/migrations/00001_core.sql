-- +goose Up
-- The judge core: submissions and their transactional outbox, dead letters, the history
-- that answers "why was this judged twice?", the audit log and API tokens.

CREATE TYPE submission_state AS ENUM ('queued', 'running', 'finished', 'dead', 'canceled');

CREATE TABLE api_tokens (
    id          bigserial PRIMARY KEY,
    name        text NOT NULL UNIQUE CHECK (name <> '' AND length(name) <= 100),
    role        text NOT NULL CHECK (role IN ('user', 'admin')),
    hash        bytea NOT NULL UNIQUE,
    created_at  timestamptz NOT NULL DEFAULT now(),
    revoked_at  timestamptz
);

CREATE TABLE problems (
    id              text PRIMARY KEY CHECK (id ~ '^[a-z0-9][a-z0-9_-]{0,63}$'),
    latest_version  int NOT NULL DEFAULT 0,
    created_at      timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE problem_versions (
    problem_id       text NOT NULL REFERENCES problems (id),
    version          int NOT NULL CHECK (version > 0),
    sha256           text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
    title            text NOT NULL,
    time_limit_ms    int NOT NULL CHECK (time_limit_ms > 0),
    memory_limit_mb  int NOT NULL CHECK (memory_limit_mb > 0),
    case_count       int NOT NULL CHECK (case_count > 0),
    meta             jsonb NOT NULL DEFAULT '{}',
    created_by       text NOT NULL DEFAULT '',
    created_at       timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (problem_id, version)
);

CREATE TABLE submissions (
    id               uuid PRIMARY KEY,
    owner_id         bigint REFERENCES api_tokens (id),
    problem_id       text NOT NULL,
    problem_version  int NOT NULL,
    problem_sha256   text NOT NULL DEFAULT '',
    language         text NOT NULL,
    lane             text NOT NULL CHECK (lane IN ('light', 'heavy', 'rejudge')),
    source           text NOT NULL,
    state            submission_state NOT NULL DEFAULT 'queued',
    -- attempt is the fencing token: every claim, reclaim and cancel increments it.
    attempt          int NOT NULL DEFAULT 0 CHECK (attempt >= 0),
    -- failures counts attempts that ended without a verdict (judge error, lost lease);
    -- at max_attempts the submission is dead-lettered.
    failures         int NOT NULL DEFAULT 0 CHECK (failures >= 0),
    max_attempts     int NOT NULL DEFAULT 3 CHECK (max_attempts > 0),
    lease_owner      text,
    lease_until      timestamptz,
    verdict          text CHECK (verdict IN ('AC', 'WA', 'PE', 'PC', 'TLE', 'MLE', 'OLE', 'RE', 'CE', 'SE')),
    score            double precision,
    time_ms          int,
    memory_kb        int,
    compile_output   text NOT NULL DEFAULT '',
    cases            jsonb NOT NULL DEFAULT '[]',
    last_error       text NOT NULL DEFAULT '',
    idempotency_key  text,
    request_hash     bytea,
    trace_id         text NOT NULL,
    created_at       timestamptz NOT NULL DEFAULT now(),
    queued_at        timestamptz NOT NULL DEFAULT now(),
    started_at       timestamptz,
    finished_at      timestamptz,
    CHECK ((state = 'running') = (lease_owner IS NOT NULL AND lease_until IS NOT NULL))
);

CREATE UNIQUE INDEX submissions_idempotency ON submissions (owner_id, idempotency_key)
    WHERE idempotency_key IS NOT NULL;
-- The reconciler and the backlog threshold look only at live submissions.
CREATE INDEX submissions_queued ON submissions (queued_at) WHERE state = 'queued';
CREATE INDEX submissions_running_lease ON submissions (lease_until) WHERE state = 'running';
CREATE INDEX submissions_owner ON submissions (owner_id, created_at DESC);
CREATE INDEX submissions_problem ON submissions (problem_id, created_at DESC);
CREATE INDEX submissions_state ON submissions (state);

-- outbox holds what must reach Redis: a job entry for a lane stream, or a dead-letter
-- notification. It is written in the same transaction as the state change it announces.
CREATE TABLE outbox (
    id             bigserial PRIMARY KEY,
    kind           text NOT NULL CHECK (kind IN ('job', 'dlq')),
    lane           text NOT NULL CHECK (lane IN ('light', 'heavy', 'rejudge', 'dlq')),
    submission_id  uuid NOT NULL REFERENCES submissions (id),
    trace_id       text NOT NULL DEFAULT '',
    created_at     timestamptz NOT NULL DEFAULT now(),
    available_at   timestamptz NOT NULL DEFAULT now(),
    attempts       int NOT NULL DEFAULT 0,
    last_error     text NOT NULL DEFAULT '',
    delivered_at   timestamptz,
    stream_id      text
);

CREATE INDEX outbox_undelivered ON outbox (id) WHERE delivered_at IS NULL;
CREATE INDEX outbox_submission ON outbox (submission_id);
CREATE INDEX outbox_stream_id ON outbox (lane, stream_id) WHERE stream_id IS NOT NULL;
CREATE INDEX outbox_delivered ON outbox (delivered_at) WHERE delivered_at IS NOT NULL;

CREATE TABLE dead_letters (
    submission_id  uuid PRIMARY KEY REFERENCES submissions (id),
    lane           text NOT NULL,
    attempts       int NOT NULL,
    last_error     text NOT NULL,
    dead_since     timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX dead_letters_since ON dead_letters (dead_since, submission_id);

-- submission_history is the per-submission trace: claims, results, retries, reclaims,
-- dead-lettering, replays, rejudges and cancels.
CREATE TABLE submission_history (
    id             bigserial PRIMARY KEY,
    submission_id  uuid NOT NULL REFERENCES submissions (id),
    at             timestamptz NOT NULL DEFAULT now(),
    event          text NOT NULL,
    attempt        int NOT NULL,
    worker         text NOT NULL DEFAULT '',
    actor          text NOT NULL DEFAULT '',
    detail         text NOT NULL DEFAULT ''
);

CREATE INDEX submission_history_submission ON submission_history (submission_id, id);

CREATE TABLE audit_log (
    id       bigserial PRIMARY KEY,
    at       timestamptz NOT NULL DEFAULT now(),
    actor    text NOT NULL,
    action   text NOT NULL,
    dry_run  boolean NOT NULL,
    params   jsonb NOT NULL DEFAULT '{}',
    counts   jsonb NOT NULL DEFAULT '{}'
);

CREATE INDEX audit_log_at ON audit_log (at DESC);

-- Every committed state change is announced on channel oj_events ("id state attempt");
-- NOTIFY is transactional, so listeners hear only what committed.
-- +goose StatementBegin
CREATE FUNCTION oj_notify_state() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' OR NEW.state IS DISTINCT FROM OLD.state OR NEW.attempt IS DISTINCT FROM OLD.attempt THEN
        PERFORM pg_notify('oj_events', NEW.id::text || ' ' || NEW.state::text || ' ' || NEW.attempt::text);
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd

CREATE TRIGGER submissions_notify AFTER INSERT OR UPDATE ON submissions
    FOR EACH ROW EXECUTE FUNCTION oj_notify_state();

-- The relay wakes on oj_outbox instead of polling; one notification per statement is enough.
-- +goose StatementBegin
CREATE FUNCTION oj_notify_outbox() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('oj_outbox', '');
    RETURN NULL;
END $$;
-- +goose StatementEnd

CREATE TRIGGER outbox_notify AFTER INSERT ON outbox
    FOR EACH STATEMENT EXECUTE FUNCTION oj_notify_outbox();

-- +goose Down
DROP TABLE audit_log, submission_history, dead_letters, outbox, submissions, problem_versions, problems, api_tokens;
DROP FUNCTION oj_notify_outbox, oj_notify_state;
DROP TYPE submission_state;

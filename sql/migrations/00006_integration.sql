-- +goose Up
-- A site can plug oj in: its own metadata on submissions, tokens it can live with, and
-- the results feed.

-- Caller metadata: a small object of strings (the site's user, contest, …), checked by
-- the API. The GIN index serves the `meta.KEY=VALUE` filters (containment).
ALTER TABLE submissions ADD COLUMN metadata jsonb NOT NULL DEFAULT '{}';
CREATE INDEX submissions_metadata ON submissions USING gin (metadata jsonb_path_ops);

-- A `reader` token reads every submission, the feed and the problems, and changes
-- nothing: what a site's backend follows results with. A token may carry its own submit
-- rate, burst and bound on live submissions (NULL: the configured defaults).
ALTER TABLE api_tokens DROP CONSTRAINT api_tokens_role_check;
ALTER TABLE api_tokens ADD CONSTRAINT api_tokens_role_check CHECK (role IN ('user', 'reader', 'admin'));
ALTER TABLE api_tokens ADD COLUMN submit_rate double precision CHECK (submit_rate >= 0);
ALTER TABLE api_tokens ADD COLUMN submit_burst int CHECK (submit_burst >= 1);
ALTER TABLE api_tokens ADD COLUMN max_live int CHECK (max_live >= 0);
ALTER TABLE api_tokens ADD COLUMN created_by text NOT NULL DEFAULT '';

-- The results feed. Every change a site cares about is a row written by a trigger in
-- the transaction of the change, so the feed is exactly what committed.
--
-- Order: a bigserial id is not a commit order (a transaction can take id 7 and commit
-- after another committed id 8; a reader that had passed 8 would never see 7). Each row
-- also records its transaction's id (txid). The feed is read in (txid, id) order and only
-- below the xmin of the reader's snapshot — the oldest transaction still running — so
-- every row it returns precedes, in that order, every row that can still commit.
CREATE TABLE events (
    id             bigserial PRIMARY KEY,
    txid           xid8 NOT NULL DEFAULT pg_current_xact_id(),
    at             timestamptz NOT NULL DEFAULT now(),
    type           text NOT NULL CHECK (type IN ('submission.queued', 'submission.running', 'submission.finished',
                                                 'submission.dead', 'submission.canceled', 'problem.version')),
    reason         text NOT NULL DEFAULT '',
    submission_id  uuid,
    problem_id     text,
    data           jsonb NOT NULL
);
CREATE INDEX events_order ON events (txid, id);
CREATE INDEX events_at ON events (at);

-- The newest (txid, id) ever deleted by retention: a cursor at or before it is gone.
CREATE TABLE events_horizon (
    one   boolean PRIMARY KEY DEFAULT true CHECK (one),
    txid  xid8 NOT NULL,
    id    bigint NOT NULL
);

-- +goose StatementBegin
CREATE FUNCTION oj_submission_event() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    why text;
BEGIN
    why := CASE
        WHEN TG_OP = 'INSERT' THEN 'submitted'
        WHEN NEW.state = 'queued' AND OLD.state = 'dead' THEN 'replayed'
        WHEN NEW.state = 'queued' AND OLD.state IN ('finished', 'canceled') THEN 'rejudged'
        WHEN NEW.state = 'queued' THEN 'retried'
        WHEN NEW.state = 'running' AND OLD.state = 'running' THEN 'reclaimed'
        WHEN NEW.state = 'running' THEN 'claimed'
        ELSE NEW.state::text
    END;
    INSERT INTO events (type, reason, submission_id, problem_id, data)
    VALUES ('submission.' || NEW.state::text, why, NEW.id, NEW.problem_id, jsonb_build_object(
        'id', NEW.id, 'owner_id', NEW.owner_id, 'problem_id', NEW.problem_id, 'problem_version', NEW.problem_version,
        'language', NEW.language, 'lane', NEW.lane, 'state', NEW.state, 'verdict', NEW.verdict, 'score', NEW.score,
        'time_ms', NEW.time_ms, 'memory_kb', NEW.memory_kb, 'attempt', NEW.attempt, 'compile_output', NEW.compile_output,
        'last_error', NEW.last_error, 'cases', NEW.cases, 'metadata', NEW.metadata, 'created_at', NEW.created_at,
        'finished_at', NEW.finished_at));
    RETURN NULL;
END $$;
-- +goose StatementEnd

-- Only a change of state or attempt is an event: heartbeats, which extend a lease, are not
-- (and do not even call the function).
CREATE TRIGGER submissions_event_insert AFTER INSERT ON submissions
    FOR EACH ROW EXECUTE FUNCTION oj_submission_event();
CREATE TRIGGER submissions_event_update AFTER UPDATE ON submissions
    FOR EACH ROW WHEN (OLD.state IS DISTINCT FROM NEW.state OR OLD.attempt IS DISTINCT FROM NEW.attempt)
    EXECUTE FUNCTION oj_submission_event();

-- +goose StatementBegin
CREATE FUNCTION oj_problem_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO events (type, reason, problem_id, data)
    VALUES ('problem.version', 'uploaded', NEW.problem_id, jsonb_build_object(
        'problem_id', NEW.problem_id, 'version', NEW.version, 'sha256', NEW.sha256, 'title', NEW.title,
        'time_limit_ms', NEW.time_limit_ms, 'memory_limit_mb', NEW.memory_limit_mb, 'case_count', NEW.case_count,
        'created_at', NEW.created_at));
    RETURN NULL;
END $$;
-- +goose StatementEnd

CREATE TRIGGER problem_versions_event AFTER INSERT ON problem_versions
    FOR EACH ROW EXECUTE FUNCTION oj_problem_event();

-- Followers of the feed wake on this; one notification per statement is enough.
-- +goose StatementBegin
CREATE FUNCTION oj_notify_feed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('oj_feed', '');
    RETURN NULL;
END $$;
-- +goose StatementEnd

CREATE TRIGGER events_notify AFTER INSERT ON events
    FOR EACH STATEMENT EXECUTE FUNCTION oj_notify_feed();

-- +goose Down
DROP TRIGGER events_notify ON events;
DROP TRIGGER problem_versions_event ON problem_versions;
DROP TRIGGER submissions_event_update ON submissions;
DROP TRIGGER submissions_event_insert ON submissions;
DROP FUNCTION oj_notify_feed, oj_problem_event, oj_submission_event;
DROP TABLE events_horizon, events;
ALTER TABLE api_tokens DROP COLUMN created_by, DROP COLUMN max_live, DROP COLUMN submit_burst, DROP COLUMN submit_rate;
ALTER TABLE api_tokens DROP CONSTRAINT api_tokens_role_check;
ALTER TABLE api_tokens ADD CONSTRAINT api_tokens_role_check CHECK (role IN ('user', 'admin'));
DROP INDEX submissions_metadata;
ALTER TABLE submissions DROP COLUMN metadata;

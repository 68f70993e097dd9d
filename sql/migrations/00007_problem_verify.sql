-- +goose Up
-- Verifying a problem version against its package's own labeled submissions.
--
-- submissions.purpose: 'verify' marks a submission made by a verification, from a
-- package's labeled sources. It has no owner, never counts for a user, is left out of
-- a problem's statistics and of its rejudges, and runs on the rejudge lane.
-- submissions.time_limit_ms: the time limit a submission is judged with when it is not
-- its problem version's (a verification runs with the limit × time_limit_to_tle, to see
-- how far past the limit its TLE-labeled submissions go).
ALTER TABLE submissions ADD COLUMN purpose text NOT NULL DEFAULT 'user'
    CONSTRAINT submissions_purpose CHECK (purpose IN ('user', 'verify'));
ALTER TABLE submissions ADD COLUMN time_limit_ms int
    CONSTRAINT submissions_time_limit CHECK (time_limit_ms > 0);

-- One verification of one version: the labeled submissions it judged (entries, each
-- with its submission's id, or why it was not run), and once they have all ended the
-- table of what each got against the limit (result). A version derives its time limit
-- from its accepted submissions when its package gives none: the first verification
-- that derives one sets problem_versions.time_limit_ms, in the transaction that ends it.
CREATE TABLE problem_verifications (
    id            bigserial PRIMARY KEY,
    problem_id    text NOT NULL,
    version       int NOT NULL,
    state         text NOT NULL DEFAULT 'running'
                  CONSTRAINT problem_verifications_state CHECK (state IN ('running', 'passed', 'failed')),
    requested_by  text NOT NULL DEFAULT '',
    run_limit_ms  int NOT NULL CHECK (run_limit_ms > 0),
    entries       jsonb NOT NULL DEFAULT '[]',
    result        jsonb NOT NULL DEFAULT '{}',
    created_at    timestamptz NOT NULL DEFAULT now(),
    finished_at   timestamptz,
    CHECK ((state = 'running') = (finished_at IS NULL)),
    FOREIGN KEY (problem_id, version) REFERENCES problem_versions (problem_id, version) ON DELETE CASCADE
);
CREATE INDEX problem_verifications_version ON problem_verifications (problem_id, version, id DESC);

-- A verification's submissions stay out of the results feed unless a follower asks for
-- them (?purpose=): each event says whose purpose its submission served, in a column the
-- feed filters on and in its data. Events written before this migration, and every
-- problem.version event, are 'user'.
ALTER TABLE events ADD COLUMN purpose text NOT NULL DEFAULT 'user'
    CONSTRAINT events_purpose CHECK (purpose IN ('user', 'verify'));

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION oj_submission_event() RETURNS trigger LANGUAGE plpgsql AS $$
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
    INSERT INTO events (type, reason, submission_id, problem_id, purpose, data)
    VALUES ('submission.' || NEW.state::text, why, NEW.id, NEW.problem_id, NEW.purpose, jsonb_build_object(
        'id', NEW.id, 'owner_id', NEW.owner_id, 'problem_id', NEW.problem_id, 'problem_version', NEW.problem_version,
        'language', NEW.language, 'lane', NEW.lane, 'state', NEW.state, 'verdict', NEW.verdict, 'score', NEW.score,
        'time_ms', NEW.time_ms, 'memory_kb', NEW.memory_kb, 'attempt', NEW.attempt, 'compile_output', NEW.compile_output,
        'last_error', NEW.last_error, 'cases', NEW.cases, 'metadata', NEW.metadata, 'purpose', NEW.purpose,
        'created_at', NEW.created_at, 'finished_at', NEW.finished_at));
    RETURN NULL;
END $$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION oj_submission_event() RETURNS trigger LANGUAGE plpgsql AS $$
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
ALTER TABLE events DROP COLUMN purpose;
DROP TABLE problem_verifications;
ALTER TABLE submissions DROP COLUMN time_limit_ms;
ALTER TABLE submissions DROP COLUMN purpose;

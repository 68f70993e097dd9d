-- +goose Up
-- The submission.queued event of a rejudge, a replay or a retry carried the attempt that
-- had just ended, the same number as that attempt's own events: a site that orders a
-- submission's events by attempt (webhooks arrive in any order) could not tell the requeue
-- from what came before it. The event now carries the next attempt. The row keeps its
-- attempt until the claim bumps it, so GET shows the last attempt started meanwhile.
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
    -- A queued event that follows an attempt (retried, rejudged, replayed) carries the
    -- attempt the claim will take, the one that judges it: a site ordering a submission's
    -- events by attempt, then state, sees the requeue after the attempt it ends.
    INSERT INTO events (type, reason, submission_id, problem_id, purpose, data)
    VALUES ('submission.' || NEW.state::text, why, NEW.id, NEW.problem_id, NEW.purpose, jsonb_build_object(
        'id', NEW.id, 'owner_id', NEW.owner_id, 'problem_id', NEW.problem_id, 'problem_version', NEW.problem_version,
        'language', NEW.language, 'lane', NEW.lane, 'state', NEW.state, 'verdict', NEW.verdict, 'score', NEW.score,
        'time_ms', NEW.time_ms, 'memory_kb', NEW.memory_kb, 'attempt', CASE WHEN TG_OP = 'UPDATE' AND NEW.state = 'queued' THEN NEW.attempt + 1 ELSE NEW.attempt END,
         'compile_output', NEW.compile_output,
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

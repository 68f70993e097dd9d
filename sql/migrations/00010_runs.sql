-- +goose Up
-- Runs: the Run button. A run is the caller's program on the caller's own inputs, with no
-- problem and no verdict. It is a row of submissions with kind 'run', so it takes the
-- submissions' durable path unchanged (row and outbox in one transaction, a stream entry
-- on lane 'run', claim with attempt and lease, fenced write-back, reclaim) — but it is
-- scratch, not a record: it never appears in the users' lists, the results feed, the
-- problems' statistics or the dead letters, and it is deleted after runs.retention.
--
-- run_spec holds the inputs and the limits applied (job.RunSpec); run_results the
-- per-input results (job.RunResult). A run's verdict stays NULL, except CE (its source
-- does not compile) and SE (it could not be run, attempts exhausted).
ALTER TABLE submissions ADD COLUMN kind text NOT NULL DEFAULT 'submission'
    CHECK (kind IN ('submission', 'run'));
ALTER TABLE submissions ADD COLUMN run_spec jsonb;
ALTER TABLE submissions ADD COLUMN run_results jsonb;
ALTER TABLE submissions ADD CONSTRAINT submissions_run_shape CHECK (
    kind = 'submission' AND run_spec IS NULL
    OR kind = 'run' AND run_spec IS NOT NULL AND lane = 'run' AND (verdict IS NULL OR verdict IN ('CE', 'SE')));

ALTER TABLE submissions DROP CONSTRAINT submissions_lane_check;
ALTER TABLE submissions ADD CONSTRAINT submissions_lane_check CHECK (lane IN ('light', 'heavy', 'rejudge', 'run'));
ALTER TABLE outbox DROP CONSTRAINT outbox_lane_check;
ALTER TABLE outbox ADD CONSTRAINT outbox_lane_check CHECK (lane IN ('light', 'heavy', 'rejudge', 'run', 'dlq'));

-- Retention walks the runs oldest first; the runs' queued cap counts the queued ones.
CREATE INDEX submissions_runs_created ON submissions (created_at, id) WHERE kind = 'run';
CREATE INDEX submissions_runs_queued ON submissions (queued_at) WHERE kind = 'run' AND state = 'queued';

-- The results feed is the submissions': a run's changes write no event.
DROP TRIGGER submissions_event_insert ON submissions;
DROP TRIGGER submissions_event_update ON submissions;
CREATE TRIGGER submissions_event_insert AFTER INSERT ON submissions
    FOR EACH ROW WHEN (NEW.kind = 'submission') EXECUTE FUNCTION oj_submission_event();
CREATE TRIGGER submissions_event_update AFTER UPDATE ON submissions
    FOR EACH ROW WHEN (NEW.kind = 'submission' AND (OLD.state IS DISTINCT FROM NEW.state OR OLD.attempt IS DISTINCT FROM NEW.attempt))
    EXECUTE FUNCTION oj_submission_event();

-- +goose Down
DROP TRIGGER submissions_event_update ON submissions;
DROP TRIGGER submissions_event_insert ON submissions;
CREATE TRIGGER submissions_event_insert AFTER INSERT ON submissions
    FOR EACH ROW EXECUTE FUNCTION oj_submission_event();
CREATE TRIGGER submissions_event_update AFTER UPDATE ON submissions
    FOR EACH ROW WHEN (OLD.state IS DISTINCT FROM NEW.state OR OLD.attempt IS DISTINCT FROM NEW.attempt)
    EXECUTE FUNCTION oj_submission_event();
-- Runs are scratch: going down deletes them (they cannot live in the old schema).
DELETE FROM outbox WHERE submission_id IN (SELECT id FROM submissions WHERE kind = 'run');
DELETE FROM submission_history WHERE submission_id IN (SELECT id FROM submissions WHERE kind = 'run');
DELETE FROM submissions WHERE kind = 'run';
DROP INDEX submissions_runs_queued;
DROP INDEX submissions_runs_created;
ALTER TABLE outbox DROP CONSTRAINT outbox_lane_check;
ALTER TABLE outbox ADD CONSTRAINT outbox_lane_check CHECK (lane IN ('light', 'heavy', 'rejudge', 'dlq'));
ALTER TABLE submissions DROP CONSTRAINT submissions_lane_check;
ALTER TABLE submissions ADD CONSTRAINT submissions_lane_check CHECK (lane IN ('light', 'heavy', 'rejudge'));
ALTER TABLE submissions DROP CONSTRAINT submissions_run_shape;
ALTER TABLE submissions DROP COLUMN run_results, DROP COLUMN run_spec, DROP COLUMN kind;

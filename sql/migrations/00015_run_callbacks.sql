-- +goose Up
-- Run callbacks: when a run with a callback_url ends (finished, dead or canceled), its
-- result is PUT to that URL by the dispatcher, with the webhooks' machinery (their
-- schedule, lease, guard and signature) but one delivery per run, to a URL of the
-- caller's, not an endpoint an admin registered: hence a table of its own.
--
-- The row is written by a trigger in the transaction that ends the run, so an ended run
-- never misses its callback, whichever path ended it (a worker's fenced finalize, a dead
-- letter, a cancel). It has no foreign key to the run: a callback is retried for days,
-- a run is kept for runs.retention. Its body is rendered at the first try and kept
-- (payload), so every try sends the same bytes under the same webhook-id (the row's
-- id), and a run whose body is not rendered yet is not deleted by retention. A new row
-- is due at once whatever the dispatcher's clock says (next_try -infinity).
CREATE TABLE run_callbacks (
    id             uuid PRIMARY KEY,
    submission_id  uuid NOT NULL UNIQUE,
    url            text NOT NULL,
    content_type   text NOT NULL DEFAULT '',
    payload        bytea,
    status         text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts       int NOT NULL DEFAULT 0,
    next_try       timestamptz NOT NULL,
    -- Retried until then (the schedule's window from the first try), then failed.
    expires_at     timestamptz,
    lease_owner    text NOT NULL DEFAULT '',
    lease_until    timestamptz,
    last_status    int,
    last_error     text NOT NULL DEFAULT '',
    last_try       timestamptz,
    created_at     timestamptz NOT NULL,
    delivered_at   timestamptz
);
CREATE INDEX run_callbacks_due ON run_callbacks (next_try) WHERE status = 'pending';
CREATE INDEX run_callbacks_done ON run_callbacks (created_at) WHERE status <> 'pending';

-- +goose StatementBegin
CREATE FUNCTION oj_run_callback() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO run_callbacks (id, submission_id, url, next_try, created_at)
    VALUES (gen_random_uuid(), NEW.id, NEW.callback_url, '-infinity', now())
    ON CONFLICT (submission_id) DO NOTHING;
    PERFORM pg_notify('oj_webhooks', '');
    RETURN NULL;
END $$;
-- +goose StatementEnd

CREATE TRIGGER submissions_run_callback AFTER UPDATE ON submissions
    FOR EACH ROW WHEN (NEW.kind = 'run' AND NEW.callback_url IS NOT NULL
                       AND OLD.state IS DISTINCT FROM NEW.state AND NEW.state IN ('finished', 'dead', 'canceled'))
    EXECUTE FUNCTION oj_run_callback();

-- +goose Down
DROP TRIGGER submissions_run_callback ON submissions;
DROP FUNCTION oj_run_callback;
DROP TABLE run_callbacks;

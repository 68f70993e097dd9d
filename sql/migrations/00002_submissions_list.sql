-- +goose Up
-- GET /admin/v1/submissions lists submissions newest first, keyset-paged on
-- (created_at, id). One index serves the unfiltered order, one the state filter; the
-- problem filter uses submissions_problem (problem_id, created_at DESC).
--
-- submissions_state (state) is dropped: submissions_state_recent leads with state, so
-- it serves every "WHERE state = …" and "state IN (…) GROUP BY state" that the plain
-- index served (the overview's state counts), and the live-state queries use their
-- partial indexes (submissions_queued, submissions_running_lease).
CREATE INDEX submissions_recent ON submissions (created_at DESC, id DESC);
CREATE INDEX submissions_state_recent ON submissions (state, created_at DESC, id DESC);
DROP INDEX submissions_state;

-- +goose Down
CREATE INDEX submissions_state ON submissions (state);
DROP INDEX submissions_state_recent;
DROP INDEX submissions_recent;

-- +goose Up
-- Capable and operable workers.
--
-- A worker announces the languages its self-check passed (NULL: a worker that does not
-- say, which judges any language), and the dispatcher releases a job row only while some
-- live, active worker of its lane runs its language. So that a lane's waiting rows are
-- filtered without a join per row, the outbox carries the submission's language ('' on
-- rows written before this migration and on rows that are not jobs: always released).
--
-- An operator drains, disables or enables a worker by name, and a worker whose last
-- attempts all ended in system errors quarantines itself; the state is the worker row's,
-- so it outlives the process: a disabled worker that restarts under the same name stays
-- disabled. The claim reads it too: a worker that is not active claims nothing, even in
-- the seconds before it notices its new state. A row that is not active is therefore kept when its worker stops (stopped_at
-- set); an active one is removed as before.
ALTER TABLE workers ADD COLUMN languages text[];
ALTER TABLE workers ADD COLUMN state text NOT NULL DEFAULT 'active'
    CHECK (state IN ('active', 'draining', 'disabled', 'quarantined'));
ALTER TABLE workers ADD COLUMN state_reason text NOT NULL DEFAULT '' CHECK (length(state_reason) <= 2000);
ALTER TABLE workers ADD COLUMN state_by text NOT NULL DEFAULT '';
ALTER TABLE workers ADD COLUMN state_at timestamptz;
ALTER TABLE workers ADD COLUMN stopped_at timestamptz;
-- The worker's recent system errors (newest first, a few), for the dashboard; its
-- attempts in flight are its leases on submissions.
ALTER TABLE workers ADD COLUMN recent_errors jsonb NOT NULL DEFAULT '[]';

ALTER TABLE outbox ADD COLUMN language text NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE outbox DROP COLUMN language;
ALTER TABLE workers DROP COLUMN recent_errors;
ALTER TABLE workers DROP COLUMN stopped_at;
ALTER TABLE workers DROP COLUMN state_at;
ALTER TABLE workers DROP COLUMN state_by;
ALTER TABLE workers DROP COLUMN state_reason;
ALTER TABLE workers DROP COLUMN state;
ALTER TABLE workers DROP COLUMN languages;

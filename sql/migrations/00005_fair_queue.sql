-- +goose Up
-- Fair judging: one user's flood must not starve everyone else.
--
-- A job outbox row is no longer relayed the moment it commits. Each row gets a fair_tag
-- when it is written (start-time fair queueing: the owner's next tag, never below the
-- lane's head), and the dispatcher releases a lane's rows into its stream in tag order,
-- only as many as keep the workers busy (its window). A user with a thousand queued
-- submissions has tags far ahead; another user's one gets the head's tag and goes next.
-- Rows written before this migration have no tag and are released first, as before.
--
-- owner_key is the submission's owner (0 for submissions without one), copied so that
-- an owner's last tag in a lane is one index lookup.
ALTER TABLE outbox ADD COLUMN owner_key bigint NOT NULL DEFAULT 0;
ALTER TABLE outbox ADD COLUMN fair_tag bigint;
CREATE INDEX outbox_fair ON outbox (lane, fair_tag NULLS FIRST, id)
    WHERE delivered_at IS NULL AND kind = 'job';
CREATE INDEX outbox_owner_fair ON outbox (lane, owner_key, fair_tag DESC)
    WHERE delivered_at IS NULL AND kind = 'job';
-- The relay's other rows (dead-letter notices) are found without walking the queue.
CREATE INDEX outbox_undelivered_other ON outbox (id) WHERE delivered_at IS NULL AND kind <> 'job';

-- The per-token bound on live submissions (api.limits.max_live_per_user) counts an
-- owner's queued and running submissions on every submit: at most that many index
-- entries, whatever the owner's history.
CREATE INDEX submissions_owner_live ON submissions (owner_id, state)
    WHERE state IN ('queued', 'running');

-- Workers announce themselves: the lanes they read and how many submissions of each
-- they judge at once. The dispatcher sizes each lane's release window from the live
-- ones (last_seen within a few heartbeats); a stopped worker removes its row.
CREATE TABLE workers (
    name        text PRIMARY KEY CHECK (name <> '' AND length(name) <= 200),
    lanes       jsonb NOT NULL DEFAULT '{}',
    started_at  timestamptz NOT NULL DEFAULT now(),
    last_seen   timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE workers;
DROP INDEX submissions_owner_live;
DROP INDEX outbox_undelivered_other;
DROP INDEX outbox_owner_fair;
DROP INDEX outbox_fair;
ALTER TABLE outbox DROP COLUMN fair_tag;
ALTER TABLE outbox DROP COLUMN owner_key;

-- +goose Up
-- Shares of the Run lane and of the webhook senders.
--
-- A token's own bound on its runs queued or running (api.limits.run_max_live_per_user
-- when null), as max_live is its submissions'.
ALTER TABLE api_tokens ADD COLUMN run_max_live int CHECK (run_max_live >= 0);

-- Each job lane's fair clock: the largest fair tag the relay has released into the lane.
-- A job row of an owner with nothing queued in the lane takes it (start-time fair
-- queueing's virtual time), so it is released right after what is already in the
-- stream, ahead of every other owner's next row; before, it took the smallest tag still
-- queued and tied with, and went after, the next row of the owner ahead of it.
CREATE TABLE lane_fair (
    lane          text PRIMARY KEY,
    released_tag  bigint NOT NULL
);

-- The senders claim due deliveries endpoint by endpoint, each endpoint holding at most
-- webhooks.concurrency_per_endpoint tries in flight: its due deliveries in order, and
-- its tries in flight (few: leased rows) counted, each one index lookup.
CREATE INDEX webhook_deliveries_endpoint_due ON webhook_deliveries (endpoint_id, next_try) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_leased ON webhook_deliveries (endpoint_id, lease_until)
    WHERE status = 'pending' AND lease_owner <> '';

-- +goose Down
DROP INDEX webhook_deliveries_leased;
DROP INDEX webhook_deliveries_endpoint_due;
DROP TABLE lane_fair;
ALTER TABLE api_tokens DROP COLUMN run_max_live;

-- +goose Up
-- Webhooks: the results feed pushed to endpoints that admins register, by the dispatcher.
--
-- The dispatcher follows the feed from one cursor (webhook_fanout) and, in one
-- transaction, writes a delivery row per event for every enabled endpoint that wants it
-- and moves the cursor past those events: a crash before the commit fans the events out
-- again from the old cursor, after it never again, so an event is neither lost nor sent
-- twice to one endpoint (the unique key below makes that a constraint, not a hope).
-- Deliveries are then claimed like the outbox (FOR UPDATE SKIP LOCKED) under a lease, so
-- that a dispatcher killed mid-delivery leaves its rows to be tried again once the lease
-- ends: the receiver may see one webhook-id twice, never none.

CREATE TABLE webhook_endpoints (
    id               uuid PRIMARY KEY,
    url              text NOT NULL CHECK (url <> '' AND length(url) <= 2048),
    -- Event types the endpoint receives; empty: all of them.
    event_types      text[] NOT NULL DEFAULT '{}',
    -- Metadata the submission must carry (every key with that value), as the feed's
    -- meta.KEY=VALUE filters; {}: every submission. Problem versions carry none: an
    -- endpoint with a filter never receives them.
    metadata         jsonb NOT NULL DEFAULT '{}',
    -- The Standard Webhooks secret (whsec_<base64>), kept to sign: shown at creation and
    -- on rotation only. The previous one signs too until previous_until, so that a
    -- receiver can switch without failing a delivery.
    secret           text NOT NULL,
    previous_secret  text NOT NULL DEFAULT '',
    previous_until   timestamptz,
    enabled          boolean NOT NULL DEFAULT true,
    disabled_reason  text NOT NULL DEFAULT '',
    disabled_at      timestamptz,
    -- Since when every try has failed (NULL after a success): an endpoint failing for
    -- the whole retry window is disabled.
    failing_since    timestamptz,
    last_error       text NOT NULL DEFAULT '',
    last_error_at    timestamptz,
    -- The endpoint receives the events after this cursor only: the feed's head when it
    -- was created or last enabled (since=now).
    start_txid       xid8 NOT NULL DEFAULT '0',
    start_id         bigint NOT NULL DEFAULT 0,
    created_at       timestamptz NOT NULL,
    created_by       text NOT NULL DEFAULT ''
);

CREATE TABLE webhook_deliveries (
    -- The webhook-id header: the same on every try of this delivery.
    id            uuid PRIMARY KEY,
    endpoint_id   uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    -- The feed event (its cursor, "txid-id"); NULL for a test delivery.
    event_id      text,
    event_type    text NOT NULL,
    -- The body: the feed event as a reader token sees it, rendered at fan-out. json, not
    -- jsonb, so that the bytes signed are the bytes the feed would send.
    payload       json NOT NULL,
    status        text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts      int NOT NULL DEFAULT 0,
    next_try      timestamptz NOT NULL,
    -- Retried until then, then failed (the schedule's whole window from its first try
    -- or its redelivery).
    expires_at    timestamptz NOT NULL,
    lease_owner   text NOT NULL DEFAULT '',
    lease_until   timestamptz,
    last_status   int,
    last_error    text NOT NULL DEFAULT '',
    last_try      timestamptz,
    created_at    timestamptz NOT NULL,
    delivered_at  timestamptz,
    UNIQUE (endpoint_id, event_id)
);
-- The claim's scan: due pending rows.
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_try) WHERE status = 'pending';
-- An endpoint's deliveries, newest first (the deliveries list, the dashboard).
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (endpoint_id, created_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, created_at DESC, id DESC);
-- Retention of what is done.
CREATE INDEX webhook_deliveries_done ON webhook_deliveries (created_at) WHERE status <> 'pending';

-- The fan-out's position in the feed: one row.
CREATE TABLE webhook_fanout (
    one   boolean PRIMARY KEY DEFAULT true CHECK (one),
    txid  xid8 NOT NULL,
    id    bigint NOT NULL
);
-- From before every event: the first fan-out with endpoints starts at the oldest of their
-- starts, and one without endpoints moves straight to the head.
INSERT INTO webhook_fanout (txid, id) VALUES ('0', 0);

-- New delivery rows wake the dispatcher's senders (a redelivery or an enabled endpoint
-- notifies by itself).
-- +goose StatementBegin
CREATE FUNCTION oj_notify_webhooks() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('oj_webhooks', '');
    RETURN NULL;
END $$;
-- +goose StatementEnd

CREATE TRIGGER webhook_deliveries_notify AFTER INSERT ON webhook_deliveries
    FOR EACH STATEMENT EXECUTE FUNCTION oj_notify_webhooks();

-- +goose Down
DROP TRIGGER webhook_deliveries_notify ON webhook_deliveries;
DROP FUNCTION oj_notify_webhooks;
DROP TABLE webhook_fanout, webhook_deliveries, webhook_endpoints;

-- +goose Up
-- The fan-out tries a page's deliveries before it writes them: a delivery that succeeds
-- at once is written once, delivered, instead of being written pending, claimed and then
-- recorded (three row versions of its payload, each with its index entries). Between its
-- read of a page and the commit that writes the page's deliveries and moves the cursor,
-- the fan-out holds the cursor under a lease (no transaction stays open while it sends):
-- a dispatcher that dies meanwhile leaves the cursor where it was, and once the lease
-- ends another one sends the page again under the same webhook-ids.
ALTER TABLE webhook_fanout ADD COLUMN lease_owner text NOT NULL DEFAULT '',
    ADD COLUMN lease_until timestamptz;

-- +goose Down
ALTER TABLE webhook_fanout DROP COLUMN lease_until, DROP COLUMN lease_owner;

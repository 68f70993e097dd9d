-- +goose Up
-- Problem removal and dead-letter purge.
--
-- problems.archived_at: a problem removed while it has submissions is archived, not
-- deleted. New submissions to it are refused like an unknown problem; its versions and
-- its packages stay, so its submissions keep judging, rejudging and replaying. A new
-- upload of the problem clears it. No index: the problems table holds one row per
-- problem and is read by id (its primary key) or whole (the admin list).
ALTER TABLE problems ADD COLUMN archived_at timestamptz;

-- 'purged': an operator removed the submission's dead letter without judging it again
-- (the submission stays dead). The set is the one of 00003 plus 'purged'. It is added
-- NOT VALID and not validated: every existing row already passed 00003's narrower
-- check, so a scan of the whole history under this migration's lock would prove nothing.
-- New and updated rows are checked as usual.
ALTER TABLE submission_history DROP CONSTRAINT submission_history_event;
ALTER TABLE submission_history ADD CONSTRAINT submission_history_event CHECK (event IN (
    'submitted', 'claimed', 'finished', 'retry', 'given_back', 'dead',
    'redriven', 'replayed', 'rejudged', 'canceled', 'purged')) NOT VALID;

-- +goose Down
-- The purge records stay in the history (NOT VALID leaves existing rows alone); only
-- new ones are refused again. Archived problems become live again.
ALTER TABLE submission_history DROP CONSTRAINT submission_history_event;
ALTER TABLE submission_history ADD CONSTRAINT submission_history_event CHECK (event IN (
    'submitted', 'claimed', 'finished', 'retry', 'given_back', 'dead',
    'redriven', 'replayed', 'rejudged', 'canceled')) NOT VALID;
ALTER TABLE problems DROP COLUMN archived_at;

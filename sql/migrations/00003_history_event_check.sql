-- +goose Up
-- submission_history.event is one of a fixed set (store.Event in Go), checked like
-- submissions.state is typed: a misspelt event can no longer be written and then be
-- silently ignored by the trace. Every event written so far is in the set. NOT VALID
-- then VALIDATE: the check of the existing rows does not block writers of the table.
ALTER TABLE submission_history ADD CONSTRAINT submission_history_event CHECK (event IN (
    'submitted', 'claimed', 'finished', 'retry', 'given_back', 'dead',
    'redriven', 'replayed', 'rejudged', 'canceled')) NOT VALID;
ALTER TABLE submission_history VALIDATE CONSTRAINT submission_history_event;

-- +goose Down
ALTER TABLE submission_history DROP CONSTRAINT submission_history_event;

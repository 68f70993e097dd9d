-- +goose Up
-- What a run made through another face than oj's own API carries (the Judge0 one):
--
-- public_token is a capability: random and unguessable (never the time-ordered id), set
-- by the face that made the run, which lets whoever holds it read the run. Unique, and
-- found through its index. callback_url is where the run's result is PUT when it ends
-- (run_callbacks, 00015). origin says which face made the run ('api', 'judge0'), for
-- the lists, the metrics and the overview; '' for a submission.
--
-- compile_raw keeps a run's compile output byte for byte when it is not text that the
-- compile_output column can hold (a NUL, invalid UTF-8): the Judge0 face returns it in
-- base64. NULL when compile_output holds it exactly.
ALTER TABLE submissions ADD COLUMN public_token text CHECK (length(public_token) BETWEEN 16 AND 128),
    ADD COLUMN callback_url text CHECK (length(callback_url) BETWEEN 1 AND 2048),
    ADD COLUMN origin text NOT NULL DEFAULT '' CHECK (length(origin) <= 32),
    ADD COLUMN compile_raw bytea;
ALTER TABLE submissions ADD CONSTRAINT submissions_run_face CHECK (
    kind = 'run' OR public_token IS NULL AND callback_url IS NULL AND compile_raw IS NULL);
CREATE UNIQUE INDEX submissions_public_token ON submissions (public_token) WHERE public_token IS NOT NULL;

-- +goose Down
DROP INDEX submissions_public_token;
ALTER TABLE submissions DROP CONSTRAINT submissions_run_face;
ALTER TABLE submissions DROP COLUMN compile_raw, DROP COLUMN origin, DROP COLUMN callback_url, DROP COLUMN public_token;

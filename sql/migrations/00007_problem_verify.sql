-- +goose Up
-- Verifying a problem version against its package's own labeled submissions.
--
-- (00006 is left to another change made at the same time; goose applies versions in
-- order, and a database that has 00007 without 00006 gets 00006 when it arrives.)
--
-- submissions.purpose: 'verify' marks a submission made by a verification, from a
-- package's labeled sources. It has no owner, never counts for a user, is left out of
-- a problem's statistics and of its rejudges, and runs on the rejudge lane.
-- submissions.time_limit_ms: the time limit a submission is judged with when it is not
-- its problem version's (a verification runs with the limit × time_limit_to_tle, to see
-- how far past the limit its TLE-labeled submissions go).
ALTER TABLE submissions ADD COLUMN purpose text NOT NULL DEFAULT 'user'
    CONSTRAINT submissions_purpose CHECK (purpose IN ('user', 'verify'));
ALTER TABLE submissions ADD COLUMN time_limit_ms int
    CONSTRAINT submissions_time_limit CHECK (time_limit_ms > 0);

-- One verification of one version: the labeled submissions it judged (entries, each
-- with its submission's id, or why it was not run), and once they have all ended the
-- table of what each got against the limit (result). A version derives its time limit
-- from its accepted submissions when its package gives none: the first verification
-- that derives one sets problem_versions.time_limit_ms, in the transaction that ends it.
CREATE TABLE problem_verifications (
    id            bigserial PRIMARY KEY,
    problem_id    text NOT NULL,
    version       int NOT NULL,
    state         text NOT NULL DEFAULT 'running'
                  CONSTRAINT problem_verifications_state CHECK (state IN ('running', 'passed', 'failed')),
    requested_by  text NOT NULL DEFAULT '',
    run_limit_ms  int NOT NULL CHECK (run_limit_ms > 0),
    entries       jsonb NOT NULL DEFAULT '[]',
    result        jsonb NOT NULL DEFAULT '{}',
    created_at    timestamptz NOT NULL DEFAULT now(),
    finished_at   timestamptz,
    CHECK ((state = 'running') = (finished_at IS NULL)),
    FOREIGN KEY (problem_id, version) REFERENCES problem_versions (problem_id, version) ON DELETE CASCADE
);
CREATE INDEX problem_verifications_version ON problem_verifications (problem_id, version, id DESC);

-- +goose Down
DROP TABLE problem_verifications;
ALTER TABLE submissions DROP COLUMN time_limit_ms;
ALTER TABLE submissions DROP COLUMN purpose;

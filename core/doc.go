// Package core is the judge core of oj. It holds no code itself; this comment states the
// invariants of DESIGN.md next to the packages that keep them, so that a change to one of
// those packages can be checked against the promise it carries.
//
// Data flow: the API commits a submission and its outbox row in one transaction
// (store.Submit); the dispatcher's relay turns outbox rows into entries of the lane
// streams (dispatch.Dispatcher.RelayOnce); workers read them through the consumer group,
// claim in PostgreSQL, judge, finalize fenced by the attempt and only then XACK
// (worker.Worker); the reconciler re-drives what Redis lost (dispatch.ReconcileOnce).
//
//  1. State and verdict are read only from PostgreSQL (store.GetSubmission). Stream
//     entries carry the submission id and trace id, nothing else (stream.Add).
//  2. Accepting = one transaction inserting the submission, its outbox row and its first
//     history row (store.Submit). No 2xx before that commit.
//  3. A worker judges only after its claim committed: attempt+1, lease_owner,
//     lease_until, state running, for a whole batch in one statement (store.ClaimBatch);
//     the judge is started from the rows that statement returned.
//  4. The finalize is fenced per row by id, attempt, lease owner, lease expiry and state
//     (store.FinalizeBatch, store.EndAttempt). A row that matches nothing is explained as
//     ErrStaleAttempt, ErrAlreadyTerminal, ErrLeaseLost or ErrNotFound, logged with
//     submission_id, attempt and trace_id, and counted in oj_finalize_rejected_total.
//  5. XACK only after the commit that decided the entry (worker.decided): a verdict, a
//     business rejection (already terminal, fenced off, a duplicate of a leased
//     submission) or a dead letter. A PostgreSQL error leaves the entry pending; it comes
//     back through reclaim. An entry that cannot be a job at all (no submission id, not a
//     UUID: stream.Entry.Malformed) is acked and deleted with a logged reason
//     (stream.Streams.Drop), on the read and the reclaim path and by the admin reclaim
//     (ops.Reclaim, counted as dropped), so it neither fails its claim batch nor returns
//     forever. The worker and the admin reclaim group entries by submission the same way
//     (stream.GroupBySubmission), malformed ones set apart before PostgreSQL is asked.
//  6. Reclaim takes over pending entries with XAUTOCLAIM but claims the submission only
//     when PostgreSQL says its lease expired (the same store.ClaimBatch condition, or
//     store.LeaseStates for the admin's ops.Reclaim); a live lease is left alone, and the
//     bumped attempt fences off the old holder. A worker never holds a lease forever: a
//     verdict it cannot write back (PostgreSQL away) is retried for one lease length at
//     most, then no longer heartbeated, so the lease
//     expires and reclaim acts (worker.finalize); every PostgreSQL call of the write-back
//     path is bounded by worker.store_timeout, and Run returns by shutdown_grace +
//     store_timeout whatever PostgreSQL does. Heartbeats stop acting on an attempt once
//     its judge returned, and stop extending it once its fate is committed.
//  7. Retries are bounded by max_attempts with exponential backoff through the outbox
//     (store.EndAttempt); past the bound the submission is dead with verdict SE, a
//     dead_letters row and a notification on oj:{dlq}:events, in the same transaction.
//     Dead letters leave only through an audited replay (ops.Replay, store.Replay).
//     Runs (rows of kind 'run', the Run button's, lane run) keep invariants 1–6 as they
//     are, but are scratch, not records: past the bound a run finishes with verdict SE
//     and its error, and leaves no dead letter (store.EndAttempt); the dispatcher deletes
//     runs past runs.retention (store.PruneRuns), and no run is ever a feed event.
//     Nothing is retried that retrying cannot fix: text a contestant or a problem setter influences
//     is made storable at the store boundary (store.Text for text, and the JSON of cases,
//     progress and audit rows: no NUL, valid UTF-8); a verdict PostgreSQL still refuses
//     for good (store.Permanent: SQLSTATE class 22 or 23, or a value JSON cannot hold) is
//     isolated by bisecting its finalize batch and ends alone as SE with the reason
//     (worker.write), and a judge that panics ends only its own attempt, as SE
//     (worker.judgeOne). Scores are finite and within ±job.MaxScore by construction:
//     refused at upload (problem, kattis, polygon), SE at judging (check.Kattis,
//     judge.bounded) and refused at finalize (job.CheckOutcome in store.FinalizeBatch);
//     a stored event that still cannot be rendered goes out as its stand-in
//     (render.Unrenderable), so that no row stops the feed or the webhooks.
//  8. Mutating admin actions live in package ops (reclaim, replay, rejudge, cancel, trim),
//     with typed params and counts; ops.audited is the one place that writes their audit
//     row (actor, action, dry_run, params, counts, and the error or refusal), in the
//     action's own transaction for cancel and a submission's rejudge; ops.Record writes
//     the row of a problem upload. A dry run of a
//     PostgreSQL action is the same transaction rolled back (store.InDryTx); Redis
//     actions only read (XPENDING, the trim script's dry mode). History events are a
//     closed set (store.Event, CHECK constraint submission_history_event).
//  9. The safe trim is XTRIM MINID at the oldest entry still pending or undelivered
//     (stream.SafeTrimID).
//  10. Sandbox kill and cleanup are idempotent (package sandbox).
//  11. Metrics carry lanes, outcomes, verdicts and reasons as labels, never ids; logs
//     carry submission_id, attempt and trace_id.
//
// Capable and operable workers (00009_workers.sql). A worker claims only the languages
// it announced (its self-check passed) and only while its row is active: the claim
// statement itself takes the languages and reads the row (store.ClaimBatch: outcomes
// incapable and parked), so neither depends on the worker noticing in time. The relay
// releases a job row only while a live, active worker of its lane runs its language
// (dispatch/capable.go); an entry that still reaches a worker that cannot or may not run
// it is handed back through the outbox without an attempt (worker/handback.go), so a
// language no worker has costs waiting, never a dead letter. Drain, disable and enable go
// through ops.SetWorkerState (audited, dry run); a quarantine is the worker's own, after
// worker.quarantine_after system errors in a row (worker/state.go).
//
// Time that decides a lease comes from a clock.Clock passed in, so tests move time
// instead of sleeping; outbox due times use PostgreSQL's clock so every relay agrees.
package core

package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"oj/core/job"
)

// EnqueueJob adds an outbox row that the relay will turn into an entry of lane's stream
// after delay (0: at once). It shares the caller's transaction, so the entry exists
// exactly when the state change that asked for it committed. Outbox times are
// PostgreSQL's own clock, so relays on other hosts agree on when a row is due.
func EnqueueJob(ctx context.Context, db DB, submissionID string, lane job.Lane, traceID string, delay time.Duration) error {
	return enqueue(ctx, db, "job", string(lane), submissionID, traceID, delay)
}

func enqueue(ctx context.Context, db DB, kind, lane, submissionID, traceID string, delay time.Duration) error {
	sql := `INSERT INTO outbox (kind, lane, submission_id, trace_id, available_at)
		VALUES ($1, $2, $3, $4, now() + $5 * interval '1 microsecond')`
	if kind == "job" {
		sql = enqueueJobSQL
	}
	_, err := db.Exec(ctx, sql, kind, lane, submissionID, traceID, delay.Microseconds())
	if err != nil {
		return fmt.Errorf("enqueue %s: %w", kind, err)
	}
	return nil
}

// enqueueJobSQL writes a job row with its fair tag (start-time fair queueing, see
// 00005_fair_queue.sql): one past the owner's last queued tag in the lane, but never
// below the lane's fair clock (00013: the largest tag released into the lane, or, before
// the first release, the smallest queued tag). An owner with nothing queued thus takes
// the tag of what was released last: its row is released next, ahead of the next row of
// every owner already served, however much another owner has queued — with one slot, it
// waits behind the row being judged and nothing else. An owner's own rows keep their
// order. Two submits of one owner racing may draw the same tag: the id breaks the tie,
// as for any two owners. The row carries the submission's language, by which the relay
// holds it back while no live worker runs it (ClaimLaneJobs).
const enqueueJobSQL = `
INSERT INTO outbox (kind, lane, submission_id, trace_id, available_at, owner_key, language, fair_tag)
SELECT $1::text, $2::text, s.id, $4::text, now() + $5 * interval '1 microsecond', coalesce(s.owner_id, 0), s.language,
       greatest(
           coalesce((SELECT f.released_tag FROM lane_fair f WHERE f.lane = $2),
                    (SELECT o.fair_tag FROM outbox o
                      WHERE o.lane = $2 AND o.kind = 'job' AND o.delivered_at IS NULL AND o.fair_tag IS NOT NULL
                      ORDER BY o.fair_tag LIMIT 1), 0),
           coalesce((SELECT o.fair_tag + 1 FROM outbox o
                      WHERE o.lane = $2 AND o.kind = 'job' AND o.delivered_at IS NULL AND o.fair_tag IS NOT NULL
                        AND o.owner_key = coalesce(s.owner_id, 0)
                      ORDER BY o.fair_tag DESC LIMIT 1), 0))
  FROM submissions s WHERE s.id = $3::uuid`

// OutboxRow is an undelivered outbox row.
type OutboxRow struct {
	ID           int64
	Kind         string // job or dlq
	Lane         string // a job lane, or dlq
	SubmissionID string
	TraceID      string
	CreatedAt    time.Time
	AvailableAt  time.Time
	Attempts     int
	LastError    string
}

const outboxColumns = `id, kind, lane, submission_id::text, trace_id, created_at, available_at, attempts, last_error`

func scanOutbox(rows interface{ Scan(...any) error }) (OutboxRow, error) {
	var r OutboxRow
	err := rows.Scan(&r.ID, &r.Kind, &r.Lane, &r.SubmissionID, &r.TraceID, &r.CreatedAt, &r.AvailableAt, &r.Attempts, &r.LastError)
	return r, err
}

func queryOutbox(ctx context.Context, db DB, what, sql string, args ...any) ([]OutboxRow, error) {
	rows, err := db.Query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer rows.Close()
	var out []OutboxRow
	for rows.Next() {
		r, err := scanOutbox(rows)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}

// ClaimOutbox locks up to limit due rows that are not jobs (dead-letter notices), oldest
// first, skipping rows another relay holds. Run it in a transaction that marks them
// delivered or failed before committing. Job rows are released per lane (ClaimLaneJobs).
func ClaimOutbox(ctx context.Context, db DB, limit int) ([]OutboxRow, error) {
	return queryOutbox(ctx, db, "claim outbox", `SELECT `+outboxColumns+` FROM outbox
		WHERE delivered_at IS NULL AND kind <> 'job' AND available_at <= now()
		ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`, limit)
}

// ClaimLaneJobs locks up to limit due job rows of lane in fair order: rows without a tag
// (written before fair release existed, or re-driven after Redis lost them) first, then
// by tag, then by id. With languages not nil, only rows in one of them (or of no recorded
// language) are taken: the others wait for a worker that runs theirs. It moves the
// lane's fair clock to the largest tag it takes (never back: a row whose XADD fails and
// is retried keeps its smaller tag and goes first). Run it like ClaimOutbox.
func ClaimLaneJobs(ctx context.Context, db DB, lane job.Lane, limit int, languages []string) ([]OutboxRow, error) {
	return queryOutbox(ctx, db, "claim lane jobs", `WITH c AS (
		    SELECT `+outboxColumns+`, fair_tag FROM outbox
		     WHERE lane = $1 AND kind = 'job' AND delivered_at IS NULL AND available_at <= now()
		       AND ($3::text[] IS NULL OR language = '' OR language = ANY($3::text[]))
		     ORDER BY fair_tag NULLS FIRST, id LIMIT $2 FOR UPDATE SKIP LOCKED
		), clock AS (
		    INSERT INTO lane_fair (lane, released_tag) SELECT $1, max(fair_tag) FROM c HAVING max(fair_tag) IS NOT NULL
		    ON CONFLICT (lane) DO UPDATE SET released_tag = greatest(lane_fair.released_tag, excluded.released_tag)
		)
		SELECT `+outboxColumns+` FROM c ORDER BY fair_tag NULLS FIRST, id`, string(lane), limit, languages)
}

// LaneJobsDue reports whether lane has a due job row that ClaimLaneJobs with languages
// would take: the relay's watchdog asks before it treats a shut lane as stalled.
func LaneJobsDue(ctx context.Context, db DB, lane job.Lane, languages []string) (bool, error) {
	var due bool
	err := db.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM outbox
		WHERE lane = $1 AND kind = 'job' AND delivered_at IS NULL AND available_at <= now()
		  AND ($2::text[] IS NULL OR language = '' OR language = ANY($2::text[])))`, string(lane), languages).Scan(&due)
	if err != nil {
		return false, fmt.Errorf("lane jobs due: %w", err)
	}
	return due, nil
}

// LanguageQueue is the job rows of one lane and language not yet released.
type LanguageQueue struct {
	Lane     job.Lane
	Language string // '' for rows written before rows carried their language
	Waiting  int64
	Oldest   time.Time
}

// LanguageQueues reads the undelivered job rows per lane and language: what the overview
// shows as waiting for a worker that runs the language.
func LanguageQueues(ctx context.Context, db DB) ([]LanguageQueue, error) {
	scan := func(rows pgx.Row, q *LanguageQueue) error {
		return rows.Scan(&q.Lane, &q.Language, &q.Waiting, &q.Oldest)
	}
	return queryAll(ctx, db, "language queues", scan, `SELECT lane, language, count(*), min(created_at) FROM outbox
		WHERE delivered_at IS NULL AND kind = 'job' GROUP BY lane, language ORDER BY lane, language`)
}

// HandBack returns a queued submission whose stream entry reached a worker that does not
// run its language: a new job row due after delay, no attempt spent. It reports false,
// doing nothing, when the submission is no longer queued (claimed or ended meanwhile) or
// already has a row waiting; the entry may be acknowledged either way.
func HandBack(ctx context.Context, db DB, id string, delay time.Duration) (bool, error) {
	handed := false
	err := InTx(ctx, db, func(tx pgx.Tx) error {
		// Lock the submission first, then look for a waiting row in a statement of its
		// own: under READ COMMITTED that statement's snapshot is taken after the lock, so
		// a second hand-back of the same submission (its entry read twice, by a reader
		// and a reclaim) sees the row the first one committed. Checked in the locking
		// statement itself, it would see the snapshot from before it waited, and both
		// would write a row.
		var lane, trace string
		err := tx.QueryRow(ctx, `SELECT lane, trace_id FROM submissions WHERE id = $1 AND state = 'queued' FOR UPDATE`,
			id).Scan(&lane, &trace)
		if err == pgx.ErrNoRows {
			return nil
		}
		if err != nil {
			return err
		}
		var waiting bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM outbox WHERE submission_id = $1 AND kind = 'job' AND delivered_at IS NULL)`,
			id).Scan(&waiting); err != nil {
			return err
		}
		if waiting {
			return nil
		}
		handed = true
		return EnqueueJob(ctx, tx, id, job.Lane(lane), trace, delay)
	})
	if err != nil {
		return false, fmt.Errorf("hand back: %w", err)
	}
	return handed, nil
}

// LockLaneRelease takes, until tx ends, the right to release lane's job rows: a release
// reads the room the lane has and fills it, and two relays (of one dispatcher or of
// several) doing that at once would both fill the same room. The two-key advisory lock's
// first key is this lock's own class.
func LockLaneRelease(ctx context.Context, tx DB, lane job.Lane) error {
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(28523, hashtext($1))`, string(lane)); err != nil {
		return fmt.Errorf("lock %s release: %w", lane, err)
	}
	return nil
}

// MarkDelivered records the stream entry id each row became.
func MarkDelivered(ctx context.Context, db DB, ids []int64, streamIDs []string) error {
	_, err := db.Exec(ctx, `UPDATE outbox o SET delivered_at = now(), stream_id = i.sid
		FROM unnest($1::bigint[], $2::text[]) AS i(id, sid) WHERE o.id = i.id`, ids, streamIDs)
	if err != nil {
		return fmt.Errorf("mark delivered: %w", err)
	}
	return nil
}

// MarkFailed records a failed delivery and tries again after delay.
func MarkFailed(ctx context.Context, db DB, ids []int64, cause string, delay time.Duration) error {
	_, err := db.Exec(ctx, `UPDATE outbox SET attempts = attempts + 1, last_error = $2,
		available_at = now() + $3 * interval '1 microsecond' WHERE id = ANY($1)`, ids, Text(cause), delay.Microseconds())
	if err != nil {
		return fmt.Errorf("mark failed: %w", err)
	}
	return nil
}

// PruneDelivered deletes up to limit rows delivered more than retention ago.
func PruneDelivered(ctx context.Context, db DB, retention time.Duration, limit int) (int64, error) {
	tag, err := db.Exec(ctx, `DELETE FROM outbox WHERE id IN (
		SELECT id FROM outbox WHERE delivered_at < now() - $1 * interval '1 microsecond'
		ORDER BY delivered_at LIMIT $2)`, retention.Microseconds(), limit)
	if err != nil {
		return 0, fmt.Errorf("prune outbox: %w", err)
	}
	return tag.RowsAffected(), nil
}

// OutboxBacklog counts undelivered rows and the creation time of the oldest.
func OutboxBacklog(ctx context.Context, db DB) (int64, *time.Time, error) {
	var n int64
	var oldest *time.Time
	err := db.QueryRow(ctx, `SELECT count(*), min(created_at) FROM outbox WHERE delivered_at IS NULL`).Scan(&n, &oldest)
	if err != nil {
		return 0, nil, fmt.Errorf("outbox backlog: %w", err)
	}
	return n, oldest, nil
}

// LaneQueue is a lane's committed job rows not yet released into its stream.
type LaneQueue struct {
	Waiting int64
	Oldest  *time.Time // created_at of the oldest; nil when none waits
}

// LaneQueues reads each lane's LaneQueue (lanes without waiting rows are absent).
func LaneQueues(ctx context.Context, db DB) (map[job.Lane]LaneQueue, error) {
	rows, err := db.Query(ctx, `SELECT lane, count(*), min(created_at) FROM outbox
		WHERE delivered_at IS NULL AND kind = 'job' GROUP BY lane`)
	if err != nil {
		return nil, fmt.Errorf("lane queues: %w", err)
	}
	defer rows.Close()
	out := map[job.Lane]LaneQueue{}
	for rows.Next() {
		var lane string
		var q LaneQueue
		if err := rows.Scan(&lane, &q.Waiting, &q.Oldest); err != nil {
			return nil, fmt.Errorf("lane queues: %w", err)
		}
		out[job.Lane(lane)] = q
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("lane queues: %w", err)
	}
	return out, nil
}

// ListOutbox returns up to limit undelivered rows, oldest first.
func ListOutbox(ctx context.Context, db DB, limit int) ([]OutboxRow, error) {
	return queryOutbox(ctx, db, "list outbox", `SELECT `+outboxColumns+` FROM outbox
		WHERE delivered_at IS NULL ORDER BY id LIMIT $1`, limit)
}

// SubmissionsForEntries maps stream entry ids of lane back to the submissions they carried,
// for entries that vanished from Redis while pending.
func SubmissionsForEntries(ctx context.Context, db DB, lane job.Lane, streamIDs []string) ([]string, error) {
	rows, err := db.Query(ctx, `SELECT DISTINCT submission_id::text FROM outbox
		WHERE lane = $1 AND stream_id = ANY($2)`, string(lane), streamIDs)
	if err != nil {
		return nil, fmt.Errorf("submissions for entries: %w", err)
	}
	return collectStrings(rows, "submissions for entries")
}

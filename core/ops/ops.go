// Package ops is oj's maintenance component: the mutating admin actions — reclaim,
// replay, purge, rejudge, cancel, trim, problem removal — with typed parameters and
// typed counts, whoever asks for them (the admin HTTP API decodes a request, calls one
// of them and encodes the counts). It is modelled on asynq's recoverer and river's job
// rescuer: maintenance as its own component over the store and the streams, not code
// inside HTTP handlers.
//
// Invariant 8 is kept in one place, audited: every action supports a dry run, returns
// its counts, and writes one audit row (who, what, when, the counts, and the error or
// refusal if any). An action that is one PostgreSQL transaction (cancel, a submission's
// rejudge, a problem's removal) writes its audit row in that transaction, so the action
// and its record commit together; a dry run is that transaction rolled back. Actions made
// of many transactions or of Redis commands (replay, purge and problem rejudge in
// batches, reclaim, trim) write the row once they end, whatever they did by then.
package ops

import (
	"log/slog"

	"oj/core/clock"
	"oj/core/store"
	"oj/core/stream"
)

// Ops runs the admin actions.
type Ops struct {
	db      store.DB
	streams *stream.Streams
	clock   clock.Clock
	log     *slog.Logger
}

// New returns the admin actions over db and streams.
func New(db store.DB, streams *stream.Streams, clk clock.Clock, log *slog.Logger) *Ops {
	if clk == nil {
		clk = clock.Real{}
	}
	if log == nil {
		log = slog.Default()
	}
	return &Ops{db: db, streams: streams, clock: clk, log: log}
}

// Request is who asks for an action, and how.
type Request struct {
	// Actor is the name recorded in the audit row and the history (the token's name).
	Actor string
	// DryRun computes the counts and changes nothing (the audit row is still written).
	DryRun bool
	// TraceID ties a lost audit row's log line to the request.
	TraceID string
}

// tally adds n to what an action did or, in a dry run, to what it would have done. Each
// action's counts carry both, named as the API's answer names them (rejudged and
// would_rejudge, …), so that its audit row says what the answer said: a dry run did
// nothing, and would have done n.
func tally[N int | int64](dryRun bool, n N, done, would *N) {
	if dryRun {
		*would += n
	} else {
		*done += n
	}
}

// batch is how many submissions one replay or rejudge transaction requeues.
const batch = 500

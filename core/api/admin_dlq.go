package api

import (
	"encoding/base64"
	"net/http"
	"strings"
	"time"

	"oj/core/job"
	"oj/core/ops"
	"oj/core/store"
	"oj/core/wire"
)

// outbox is GET /admin/v1/outbox?limit=: undelivered rows, oldest first, with the backlog.
func (s *Server) outbox(w http.ResponseWriter, r *http.Request, _ *store.Token) error {
	limit, err := queryInt(r, "limit", 100, 1000)
	if err != nil {
		return err
	}
	n, oldest, err := store.OutboxBacklog(r.Context(), s.d.DB)
	if err != nil {
		return unavailable("outbox", err)
	}
	rows, err := store.ListOutbox(r.Context(), s.d.DB, int(limit))
	if err != nil {
		return unavailable("outbox", err)
	}
	out := wire.Outbox{Backlog: n, OldestAgeMS: ageMS(s.clock.Now(), oldest), Rows: make([]wire.OutboxRow, 0, len(rows))}
	for _, o := range rows {
		out.Rows = append(out.Rows, wire.OutboxRow{ID: o.ID, Kind: o.Kind, Lane: o.Lane, SubmissionID: o.SubmissionID,
			CreatedAt: o.CreatedAt, NextTry: o.AvailableAt, Attempts: o.Attempts, LastError: o.LastError})
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// Keyset cursors (the DLQ's, the submission list's) are "<time RFC 3339>,<submission
// id>", base64url: opaque to clients, the last row of the page they follow.
func encodeCursor(at time.Time, id string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(at.Format(time.RFC3339Nano) + "," + id))
}

func decodeCursor(c string) (time.Time, string, error) {
	if c == "" {
		return time.Time{}, "", nil
	}
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err == nil {
		ts, id, ok := strings.Cut(string(b), ",")
		if t, terr := time.Parse(time.RFC3339Nano, ts); ok && terr == nil {
			if job.IsSubmissionID(id) {
				return t, id, nil
			}
		}
	}
	return time.Time{}, "", errorf(http.StatusBadRequest, codeBadRequest, "cursor: not one this server gave out")
}

// dlq is GET /admin/v1/dlq?limit=&cursor=: dead letters, oldest first, paged.
func (s *Server) dlq(w http.ResponseWriter, r *http.Request, _ *store.Token) error {
	limit, err := queryInt(r, "limit", 100, 1000)
	if err != nil {
		return err
	}
	limit = max(limit, 1)
	since, after, err := decodeCursor(r.URL.Query().Get("cursor"))
	if err != nil {
		return err
	}
	items, err := store.ListDeadLetters(r.Context(), s.d.DB, int(limit), since, after)
	if err != nil {
		return unavailable("dead letters", err)
	}
	total, _, err := store.DeadLetterCount(r.Context(), s.d.DB)
	if err != nil {
		return unavailable("dead letters", err)
	}
	out := wire.DLQ{Items: make([]wire.DeadLetter, 0, len(items)), Total: total}
	for _, d := range items {
		out.Items = append(out.Items, deadLetterWire(d))
	}
	if int64(len(items)) == limit {
		last := items[len(items)-1]
		out.NextCursor = encodeCursor(last.DeadSince, last.SubmissionID)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func deadLetterWire(d store.DeadLetter) wire.DeadLetter {
	return wire.DeadLetter{SubmissionID: d.SubmissionID, Lane: d.Lane, Attempts: d.Attempts, LastError: d.LastError, DeadSince: d.DeadSince}
}

// replay is POST /admin/v1/dlq/replay: {"ids":[…]} or {"all":true}, with dry_run: a new
// attempt through the outbox, never a raw XADD (ops.Replay).
func (s *Server) replay(w http.ResponseWriter, r *http.Request, tok *store.Token) error {
	var req wire.ReplayRequest
	return act(s, w, r, tok, action[wire.ReplayResult]{body: &req, dryRun: &req.DryRun, what: "replay",
		check: func() error { return idsOrAll(req.IDs, req.All) },
		do: func(or ops.Request) (wire.ReplayResult, error) {
			c, err := s.ops.Replay(r.Context(), or, ops.ReplayParams{IDs: req.IDs, All: req.All})
			return wire.ReplayResult{DryRun: or.DryRun, Requested: c.Requested, Replayed: c.Replayed,
				WouldReplay: c.WouldReplay}, err
		}})
}

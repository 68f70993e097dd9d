package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"oj/core/api/wire"
	"oj/core/job"
	"oj/core/store"
)

// events is GET /api/v1/submissions/{id}/events: Server-Sent Events. The first `state`
// event is the current state read from PostgreSQL (a late client learns where things
// stand), then one per change announced on oj_events, with a `case` event for each case
// of the running attempt as it is judged, and the stream closes after a terminal state,
// whose event carries the whole submission. Comment lines keep idle
// connections open. (SSE framing is a few lines of text; no library is needed for it.)
func (s *Server) events(w http.ResponseWriter, r *http.Request, tok *store.Token) error {
	ctx := r.Context()
	flusher, ok := w.(http.Flusher)
	if !ok {
		return errorf(http.StatusInternalServerError, codeInternal, "streaming unsupported")
	}
	id := r.PathValue("id")
	// Subscribe before the first read, so no change falls between the two.
	sub := s.hub.subscribe(id)
	defer s.hub.unsubscribe(sub)
	cur, err := s.visibleSubmission(r, tok)
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)

	last := stateChange{state: string(cur.State), attempt: cur.Attempt}
	if err := s.sendState(w, tok, id, cur, last); err != nil || cur.State.Terminal() {
		flusher.Flush()
		return nil
	}
	flusher.Flush()
	heartbeat := time.NewTicker(s.lim.SSEHeartbeat)
	defer heartbeat.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-s.closing:
			return nil
		case <-heartbeat.C:
			if _, err := fmt.Fprint(w, ": keep-alive\n\n"); err != nil {
				return nil
			}
			flusher.Flush()
		case <-sub.wake:
			changes, resync := sub.take()
			if resync {
				// Notifications may have been lost: PostgreSQL says where things are.
				cur, err := store.GetSubmission(ctx, s.d.DB, id)
				if err != nil {
					return nil
				}
				changes = []stateChange{{state: string(cur.State), attempt: cur.Attempt}}
			}
			for _, c := range changes {
				if c.caseJSON != "" {
					if c.attempt == last.attempt && last.state == string(job.StateRunning) {
						if err := sendCase(w, tok, id, c); err != nil {
							return nil
						}
						flusher.Flush()
					}
					continue
				}
				// Older notifications than the first read, and repeats, are not changes.
				if c.attempt < last.attempt || c == last {
					continue
				}
				last = c
				var whole *store.Submission
				if job.State(c.state).Terminal() {
					if whole, err = store.GetSubmission(ctx, s.d.DB, id); err != nil {
						return nil
					}
				}
				if err := s.sendState(w, tok, id, whole, c); err != nil {
					return nil
				}
				flusher.Flush()
				if job.State(c.state).Terminal() {
					return nil
				}
			}
		}
	}
}

// sendCase writes one `case` event: a case of the running attempt was judged.
func sendCase(w http.ResponseWriter, tok *store.Token, id string, c stateChange) error {
	var cr wire.Case
	if err := json.Unmarshal([]byte(c.caseJSON), &cr); err != nil {
		return nil // a malformed notification is skipped, the stream goes on
	}
	cr = forViewer(cr, tok)
	b, err := json.Marshal(wire.StateEvent{ID: id, State: c.state, Attempt: c.attempt, Case: &cr})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "event: case\ndata: %s\n\n", b)
	return err
}

// sendState writes one `state` event; whole (when given and terminal) is attached.
func (s *Server) sendState(w http.ResponseWriter, tok *store.Token, id string, whole *store.Submission, c stateChange) error {
	ev := wire.StateEvent{ID: id, State: c.state, Attempt: c.attempt}
	if whole != nil && whole.State.Terminal() {
		ws := toWire(whole, tok)
		ev.Submission = &ws
	}
	b, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "event: state\nid: %d-%s\ndata: %s\n\n", c.attempt, c.state, b)
	return err
}

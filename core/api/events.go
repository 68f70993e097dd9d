package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"oj/core/job"
	"oj/core/store"
	"oj/core/wire"
)

// events is GET /api/v1/submissions/{id}/events: Server-Sent Events. The first `state`
// event is the current state read from PostgreSQL (a late client learns where things
// stand), then one per change announced on oj_events, with a `case` event for each case
// of the running attempt as it is judged, and the stream closes after a terminal state,
// whose event carries the whole submission. Comment lines keep idle
// connections open. (SSE framing is a few lines of text; no library is needed for it.)
func (s *Server) events(w http.ResponseWriter, r *http.Request, tok *store.Token) error {
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
	release, aerr := s.streams.enter(tok)
	if aerr != nil {
		return aerr
	}
	defer release()
	view, err := s.caseViewOf(r.Context(), tok, cur)
	if err != nil {
		return unavailable("read submission", err)
	}
	startEventStream(w)
	es := &eventStream{s: s, w: w, flusher: flusher, tok: tok, view: view, id: id,
		last: stateChange{state: string(cur.State), attempt: cur.Attempt}}
	if es.sendFirst(cur) {
		es.follow(r.Context(), sub)
	}
	return nil
}

// startEventStream writes the SSE answer's headers. X-Accel-Buffering keeps nginx from
// holding events back.
func startEventStream(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
}

// eventStream is one client's stream of a submission's events. last is the last state
// sent: older notifications and repeats are dropped against it, and only cases of its
// attempt while it is running are sent.
type eventStream struct {
	s       *Server
	w       http.ResponseWriter
	flusher http.Flusher
	tok     *store.Token
	view    caseView // the submission's problem version never changes: one view serves the stream
	id      string
	last    stateChange
}

// sendFirst sends the state read from PostgreSQL; it reports whether the stream goes on
// (the write worked and the state is not terminal).
func (es *eventStream) sendFirst(cur *store.Submission) bool {
	err := es.sendState(cur, es.last)
	es.flusher.Flush()
	return err == nil && !cur.State.Terminal()
}

// follow sends the changes announced on sub until a terminal state, a failed write or
// read, the client leaving or the server closing.
func (es *eventStream) follow(ctx context.Context, sub *subscription) {
	heartbeat := time.NewTicker(es.s.lim.SSEHeartbeat)
	defer heartbeat.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-es.s.closing:
			return
		case <-heartbeat.C:
			if _, err := fmt.Fprint(es.w, ": keep-alive\n\n"); err != nil {
				return
			}
			es.flusher.Flush()
		case <-sub.wake:
			changes, err := es.pending(ctx, sub)
			if err != nil || es.sendChanges(ctx, changes) {
				return
			}
		}
	}
}

// pending takes sub's queued changes. After a resync notifications may have been lost,
// so the one change is the state PostgreSQL holds now.
func (es *eventStream) pending(ctx context.Context, sub *subscription) ([]stateChange, error) {
	changes, resync := sub.take()
	if !resync {
		return changes, nil
	}
	cur, err := store.GetSubmission(ctx, es.s.d.DB, es.id)
	if err != nil {
		return nil, err
	}
	return []stateChange{{state: string(cur.State), attempt: cur.Attempt}}, nil
}

// sendChanges sends changes in order; it reports whether the stream is done.
func (es *eventStream) sendChanges(ctx context.Context, changes []stateChange) (done bool) {
	for _, c := range changes {
		if c.caseJSON != "" {
			if err := es.sendCaseOf(c); err != nil {
				return true
			}
			continue
		}
		// Older notifications than the first read, and repeats, are not changes.
		if c.attempt < es.last.attempt || c == es.last {
			continue
		}
		es.last = c
		if es.sendChange(ctx, c) {
			return true
		}
	}
	return false
}

// sendCaseOf sends c's case only when it is of the attempt the client was last told is
// running; any other case would not fit the state the client holds, and is dropped.
func (es *eventStream) sendCaseOf(c stateChange) error {
	if c.attempt != es.last.attempt || es.last.state != string(job.StateRunning) {
		return nil
	}
	if err := sendCase(es.w, es.view, es.id, c); err != nil {
		return err
	}
	es.flusher.Flush()
	return nil
}

// sendChange sends a state change; it reports whether the stream is done. A terminal
// state carries the whole submission, read from PostgreSQL (invariant 1), and ends it.
func (es *eventStream) sendChange(ctx context.Context, c stateChange) (done bool) {
	terminal := job.State(c.state).Terminal()
	var whole *store.Submission
	if terminal {
		var err error
		if whole, err = store.GetSubmission(ctx, es.s.d.DB, es.id); err != nil {
			return true
		}
	}
	if err := es.sendState(whole, c); err != nil {
		return true
	}
	es.flusher.Flush()
	return terminal
}

// sendCase writes one `case` event: a case of the running attempt was judged.
func sendCase(w http.ResponseWriter, view caseView, id string, c stateChange) error {
	var cr wire.Case
	if err := json.Unmarshal([]byte(c.caseJSON), &cr); err != nil {
		return nil // a malformed notification is skipped, the stream goes on
	}
	cr = view.Case(cr)
	b, err := json.Marshal(wire.StateEvent{ID: id, State: c.state, Attempt: c.attempt, Case: &cr})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "event: case\ndata: %s\n\n", b)
	return err
}

// sendState writes one `state` event; whole (when given and terminal) is attached. A
// submission that cannot be encoded (a value JSON cannot hold, read from an old row) is
// left out and RenderError says so: the client learns the state, the stream is not cut,
// and the failure is logged and counted.
func (es *eventStream) sendState(whole *store.Submission, c stateChange) error {
	ev := wire.StateEvent{ID: es.id, State: c.state, Attempt: c.attempt}
	if whole != nil && whole.State.Terminal() {
		ws := toWire(whole, es.tok, es.view)
		ev.Submission = &ws
	}
	b, err := json.Marshal(ev)
	if err != nil {
		es.s.metrics.unrenderable.WithLabelValues(unrenderableEvents).Inc()
		es.s.log.Warn("submission event sent without the submission", "submission_id", es.id, "attempt", c.attempt, "err", err)
		ev.Submission = nil
		ev.RenderError = "the submission could not be rendered: " + err.Error()
		if b, err = json.Marshal(ev); err != nil {
			return err
		}
	}
	_, err = fmt.Fprintf(es.w, "event: state\nid: %d-%s\ndata: %s\n\n", c.attempt, c.state, b)
	return err
}

package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"oj/core/render"
	"oj/core/store"
	"oj/core/wire"
)

// The results feed, GET /api/v1/events: every submission's state changes and every new
// problem version, in commit order, resumable by cursor (store.ReadFeed says why no
// event is ever skipped). For reader and admin tokens — a site's backend follows it
// instead of polling each submission. Server-Sent Events (each event's `id:` is its
// cursor; Last-Event-ID is honoured) or, with `Accept: application/x-ndjson`, one JSON
// event per line.

const (
	// feedPage is how many events one read of PostgreSQL takes: a slow follower costs
	// one page of memory, whatever it has to catch up on.
	feedPage = 500
	// feedPoll bounds how long a follower waits for a notification before it reads
	// again: a write transaction running elsewhere holds the head back, and its end
	// (which lets events through) is not announced.
	feedPoll = time.Second
)

// feedQuery is a parsed feed request.
type feedQuery struct {
	since  string // "", "now" or a cursor
	follow bool
	filter store.FeedFilter
	ndjson bool
}

func parseFeedQuery(r *http.Request) (feedQuery, *apiError) {
	q := r.URL.Query()
	fq := feedQuery{since: q.Get("since"), follow: true}
	if fq.since == "" {
		fq.since = r.Header.Get("Last-Event-ID") // an EventSource reconnecting
	}
	switch v := q.Get("follow"); v {
	case "", "true":
	case "false":
		fq.follow = false
	default:
		return fq, errorf(http.StatusBadRequest, codeBadRequest, "follow: %q (want true or false)", quoteClip(v, 20))
	}
	if v := q.Get("types"); v != "" {
		for _, t := range strings.Split(v, ",") {
			t = strings.TrimSpace(t)
			if !slices.Contains(wire.EventTypes, t) {
				return fq, errorf(http.StatusBadRequest, codeBadRequest, "types: %q is not an event type (%s)", quoteClip(t, 40), strings.Join(wire.EventTypes, ", "))
			}
			fq.filter.Types = append(fq.filter.Types, t)
		}
	}
	if p := q.Get("problem"); p != "" {
		if !problemID.MatchString(p) {
			return fq, errorf(http.StatusBadRequest, codeBadRequest, "problem: %q is not a problem id", quoteClip(p, 70))
		}
		fq.filter.ProblemID = p
	}
	meta, aerr := metaFilter(r)
	if aerr != nil {
		return fq, aerr
	}
	fq.filter.Metadata = meta
	if fq.filter.Purpose, aerr = purposeQuery(r); aerr != nil {
		return fq, aerr
	}
	fq.ndjson = strings.Contains(r.Header.Get("Accept"), "application/x-ndjson")
	return fq, nil
}

// feedStart resolves where a follower starts: after the horizon (the oldest event kept)
// without since, at the head with since=now, after the cursor otherwise. A cursor older
// than the horizon (its events were deleted) or past the head (not one this feed gave
// out) is 410 with how to resynchronise. Cursors compare as numbers (store.Cursor.Less).
// With since=now it starts at store.FeedNow's cursor and also returns the call's
// snapshot, whose committed transactions' events the follower leaves out
// (store.FeedFilter.Unseen): since=now promises none of those, and a follower that
// drops before its first event resumes from that cursor.
// feedNowWait bounds how long since=now waits for the transactions open at the call to
// end, so that its cursor can sit above every event that committed before the call
// (store.FeedNow); they are short, and a long one only costs the follower a replay.
const feedNowWait = 2 * time.Second

func (s *Server) feedStart(ctx context.Context, since string) (store.Cursor, string, *apiError) {
	b, err := store.ReadFeedBounds(ctx, s.d.DB)
	if err != nil {
		return store.Cursor{}, "", unavailable("read the feed", err)
	}
	switch since {
	case "":
		return b.Horizon, "", nil
	case "now":
		c, snap, err := store.FeedNow(ctx, s.d.DB, feedNowWait)
		if err != nil {
			return store.Cursor{}, "", unavailable("read the feed", err)
		}
		if c.Less(b.Horizon) {
			c = b.Horizon
		}
		return c, snap, nil
	}
	c, err := store.ParseCursor(since)
	if err != nil {
		return store.Cursor{}, "", errorf(http.StatusBadRequest, codeBadRequest, "since: %v; want an event's id, or now", err)
	}
	resync := "; resynchronise: read each submission you track with GET /api/v1/submissions/{id} " +
		"(or list them with GET /api/v1/submissions), then follow the feed from ?since=now"
	switch {
	case c.Less(b.Horizon):
		return store.Cursor{}, "", errorf(http.StatusGone, codeGone, "cursor %s is older than the oldest event kept "+
			"(events are kept events.retention)%s", since, resync)
	case b.Head.Less(c):
		return store.Cursor{}, "", errorf(http.StatusGone, codeGone, "cursor %s is not one this feed gave out "+
			"(from another server, or the database was restored)%s", since, resync)
	}
	return c, "", nil
}

// feed is GET /api/v1/events.
func (s *Server) feed(w http.ResponseWriter, r *http.Request, tok *store.Token) error {
	flusher, ok := w.(http.Flusher)
	if !ok {
		return errorf(http.StatusInternalServerError, codeInternal, "streaming unsupported")
	}
	fq, aerr := parseFeedQuery(r)
	if aerr != nil {
		return aerr
	}
	after, unseen, aerr := s.feedStart(r.Context(), fq.since)
	if aerr != nil {
		return aerr
	}
	fq.filter.Unseen = unseen
	release, aerr := s.streams.enter(tok)
	if aerr != nil {
		return aerr
	}
	defer release()
	leave, aerr := s.followers.enter()
	if aerr != nil {
		return aerr
	}
	defer leave()
	h := w.Header()
	if fq.ndjson {
		h.Set("Content-Type", "application/x-ndjson")
		h.Set("Cache-Control", "no-cache")
		h.Set("X-Accel-Buffering", "no")
		w.WriteHeader(http.StatusOK)
	} else {
		startEventStream(w)
	}
	f := &follower{s: s, w: w, flusher: flusher, tok: tok, q: fq, after: after}
	// The stream opens with the cursor it starts from: a follower dropped before its first
	// event resumes from there, where a second since=now would skip what came meanwhile.
	if f.sendCursor() != nil {
		return nil
	}
	flusher.Flush()
	f.run(r.Context())
	return nil
}

// follower is one client's read of the feed.
type follower struct {
	s       *Server
	w       http.ResponseWriter
	flusher http.Flusher
	tok     *store.Token
	q       feedQuery
	after   store.Cursor
}

func (f *follower) run(ctx context.Context) {
	heartbeat := time.NewTicker(f.s.lim.SSEHeartbeat)
	defer heartbeat.Stop()
	poll := time.NewTicker(feedPoll)
	defer poll.Stop()
	for {
		wake := f.s.hub.feedWait() // before the read: a commit during it still wakes us
		full, err := f.page(ctx)
		if err != nil {
			return
		}
		if full {
			continue
		}
		if !f.q.follow {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-f.s.closing:
			return
		case <-wake:
		case <-poll.C:
		case <-heartbeat.C:
			if f.keepAlive() != nil {
				return
			}
		}
	}
}

// page reads and sends one page of events; full says more may be waiting.
func (f *follower) page(ctx context.Context) (full bool, err error) {
	p, err := store.ReadFeed(ctx, f.s.d.DB, f.after, f.q.filter, feedPage)
	if err != nil {
		if ctx.Err() == nil {
			f.s.log.Warn("read the feed", "err", err)
		}
		return false, err
	}
	for _, e := range p.Events {
		ev, b, err := f.s.feedLine(ctx, f.tok, e)
		if err != nil {
			return false, err
		}
		if err := f.send(ev, b); err != nil {
			return false, err
		}
	}
	moved := f.after != p.Next
	f.after = p.Next
	if len(p.Events) > 0 || moved {
		if !f.q.ndjson && moved && len(p.Events) == 0 {
			// Filtered-out events moved the cursor: tell an EventSource, so that a
			// reconnect resumes from here (an id alone dispatches no event).
			if _, err := fmt.Fprintf(f.w, "id: %s\n\n", f.after); err != nil {
				return false, err
			}
		}
		f.flusher.Flush()
	}
	return len(p.Events) == feedPage, nil
}

// send writes one event, b its JSON.
func (f *follower) send(ev wire.Event, b []byte) error {
	var err error
	if f.q.ndjson {
		_, err = fmt.Fprintf(f.w, "%s\n", b)
	} else {
		_, err = fmt.Fprintf(f.w, "event: %s\nid: %s\ndata: %s\n\n", ev.Type, ev.ID, b)
	}
	return err
}

// sendCursor tells the client the cursor reached: an SSE id alone (which sets an
// EventSource's last event id and dispatches no event), or an NDJSON heartbeat.
func (f *follower) sendCursor() error {
	var err error
	if f.q.ndjson {
		_, err = fmt.Fprintf(f.w, "{\"type\":\"heartbeat\",\"id\":%q}\n", f.after.String())
	} else {
		_, err = fmt.Fprintf(f.w, "id: %s\n\n", f.after)
	}
	return err
}

// keepAlive keeps an idle connection open: an SSE comment, or in NDJSON a heartbeat
// object carrying the cursor reached (a filtered follower may resume from it).
func (f *follower) keepAlive() error {
	var err error
	if f.q.ndjson {
		err = f.sendCursor()
	} else {
		_, err = fmt.Fprint(f.w, ": keep-alive\n\n")
	}
	f.flusher.Flush()
	return err
}

// feedLine renders and encodes a stored event for tok: a submission as GET shows it to
// tok (its cases as tok may see them), a problem version as it was recorded. An event that
// cannot be rendered or encoded goes out as its stand-in (render.Unrenderable: its id,
// type and submission, and why), logged and counted, and the feed goes on past it; any
// other error is the store's.
func (s *Server) feedLine(ctx context.Context, tok *store.Token, e store.FeedEvent) (wire.Event, []byte, error) {
	ev, b, err := render.EncodeFeedEvent(ctx, &s.views, s.d.DB, isAdmin(tok), e)
	if errors.Is(err, render.ErrUnrenderable) {
		s.metrics.unrenderable.WithLabelValues(unrenderableFeed).Inc()
		s.log.Warn("feed event sent as its stand-in", "submission_id", e.SubmissionID, "event_id", ev.ID, "err", err)
		return ev, b, nil
	}
	return ev, b, err
}

package api

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// hub is the API process's one LISTEN on oj_events (the trigger's "id state attempt" on
// every committed state or attempt change) and oj_progress (cases judged so far),
// fanned out to the submits waiting for a
// verdict and the event streams — rather than one poll loop per request. Notifications
// can be missed while the connection is down: on every (re)connect each subscriber is
// told to resync from PostgreSQL.
type hub struct {
	db  *pgxpool.Pool
	log *slog.Logger

	mu   sync.Mutex
	subs map[string]map[*subscription]struct{}
	// feed is closed, and replaced, at every commit of feed events (oj_feed): what the
	// results feed's followers wait on.
	feed chan struct{}
}

// stateChange is one notification: a state change, or (caseJSON set) one case's result
// announced on oj_progress while the attempt is still judging.
type stateChange struct {
	state    string
	attempt  int
	caseJSON string
}

// maxQueued bounds a subscription's queue; past it the subscriber resyncs from PostgreSQL.
const maxQueued = 64

// subscription receives the changes of one submission.
type subscription struct {
	id   string
	wake chan struct{} // capacity 1: "something is queued"

	mu     sync.Mutex
	queue  []stateChange
	resync bool
}

func newHub(db *pgxpool.Pool, log *slog.Logger) *hub {
	return &hub{db: db, log: log, subs: map[string]map[*subscription]struct{}{}, feed: make(chan struct{})}
}

func (h *hub) subscribe(id string) *subscription {
	s := &subscription{id: id, wake: make(chan struct{}, 1)}
	h.mu.Lock()
	if h.subs[id] == nil {
		h.subs[id] = map[*subscription]struct{}{}
	}
	h.subs[id][s] = struct{}{}
	h.mu.Unlock()
	return s
}

func (h *hub) unsubscribe(s *subscription) {
	h.mu.Lock()
	delete(h.subs[s.id], s)
	if len(h.subs[s.id]) == 0 {
		delete(h.subs, s.id)
	}
	h.mu.Unlock()
}

// take returns what was queued, and whether the subscriber must resync from PostgreSQL.
func (s *subscription) take() ([]stateChange, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q, r := s.queue, s.resync
	s.queue, s.resync = nil, false
	return q, r
}

func (s *subscription) push(c stateChange, resync bool) {
	s.mu.Lock()
	if resync || len(s.queue) >= maxQueued {
		s.resync = true
	} else {
		s.queue = append(s.queue, c)
	}
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (h *hub) deliver(payload string) {
	f := strings.Fields(payload)
	if len(f) != 3 {
		return
	}
	attempt, err := strconv.Atoi(f[2])
	if err != nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs[f[0]] {
		s.push(stateChange{state: f[1], attempt: attempt}, false)
	}
}

// deliverCase fans out an oj_progress payload "<id> <attempt> <case JSON>".
func (h *hub) deliverCase(payload string) {
	f := strings.SplitN(payload, " ", 3)
	if len(f) != 3 {
		return
	}
	attempt, err := strconv.Atoi(f[1])
	if err != nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs[f[0]] {
		s.push(stateChange{state: "running", attempt: attempt, caseJSON: f[2]}, false)
	}
}

func (h *hub) resyncAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, set := range h.subs {
		for s := range set {
			s.push(stateChange{}, true)
		}
	}
	close(h.feed) // the feed's followers read PostgreSQL again
	h.feed = make(chan struct{})
}

// run listens until ctx ends, reconnecting after errors.
func (h *hub) run(ctx context.Context) {
	const firstWait = 100 * time.Millisecond
	wait := firstWait
	for ctx.Err() == nil {
		listened, err := h.listenOnce(ctx)
		if ctx.Err() != nil {
			return
		}
		if listened {
			// The connection worked until now (a PostgreSQL failover, a restart): the
			// next one is tried soon, not after the longest wait of earlier losses.
			wait = firstWait
		}
		h.log.Warn("oj_events listener lost; reconnecting", "err", err, "retry_in", wait)
		h.resyncAll()
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		wait = min(wait*2, 5*time.Second)
	}
}

// listenOnce listens until the connection fails; listened says whether LISTEN took.
func (h *hub) listenOnce(ctx context.Context) (listened bool, err error) {
	conn, err := h.db.Acquire(ctx)
	if err != nil {
		return false, err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "LISTEN oj_events; LISTEN oj_progress; LISTEN oj_feed"); err != nil {
		conn.Conn().Close(context.Background())
		return false, err
	}
	// Changes may have committed while nobody listened.
	h.resyncAll()
	for {
		n, err := conn.Conn().WaitForNotification(ctx)
		if err != nil {
			conn.Conn().Close(context.Background()) // never return a LISTENing connection to the pool
			return true, err
		}
		switch n.Channel {
		case "oj_progress":
			h.deliverCase(n.Payload)
		case "oj_feed":
			h.feedCommitted()
		default:
			h.deliver(n.Payload)
		}
	}
}

// feedWait returns a channel closed at the next commit of feed events (or resync).
func (h *hub) feedWait() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.feed
}

// feedCommitted wakes every follower of the results feed.
func (h *hub) feedCommitted() {
	h.mu.Lock()
	defer h.mu.Unlock()
	close(h.feed)
	h.feed = make(chan struct{})
}

package build

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"oj/core/judge"
	"oj/core/judge/objstore"
	"oj/core/stream"
)

// Builder builds a package's tools: the worker's judge (judge.Judge.BuildTools). Its
// error is classified with the judge's error classes: a ToolCompileError, another
// PermanentError, or anything else (worth trying again).
type Builder interface {
	BuildTools(ctx context.Context, sha string) error
}

// Server answers build requests (a worker's side): up to its slots at once, each read
// only when a slot is free, so that a request waits in the stream for any worker with
// room rather than behind a build that may take its whole bound.
type Server struct {
	rdb   redis.UniversalClient
	keys  stream.Keys
	b     Builder
	name  string
	slots int
	log   *slog.Logger
	block time.Duration
	idle  time.Duration

	mu       sync.Mutex
	inFlight map[string]bool // stream entries being built here
}

// NewServer returns a server reading requests as consumer name and building up to slots
// of them at once (worker.tool_builds).
func NewServer(rdb redis.UniversalClient, keys stream.Keys, b Builder, name string, slots int, log *slog.Logger) *Server {
	return &Server{rdb: rdb, keys: keys, b: b, name: name, slots: max(slots, 1), log: log, block: 2 * time.Second,
		idle: ClaimIdle, inFlight: map[string]bool{}}
}

var requestID = regexp.MustCompile(`^[0-9a-f]{32}$`)

// Run answers requests until ctx ends, then waits for the builds in flight (they end
// with ctx). Redis failures are logged and retried.
func (s *Server) Run(ctx context.Context) error {
	slots := make(chan struct{}, s.slots)
	var wg sync.WaitGroup
	defer wg.Wait()
	r := reader{s: s}
	for {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			return nil
		}
		m, ok := r.next(ctx)
		if !ok {
			<-slots
			continue
		}
		s.track(m.ID, true)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			defer s.track(m.ID, false)
			s.handle(ctx, m)
		}()
	}
}

// reader hands the server one request at a time: one taken over from a dead worker, or
// a new one.
type reader struct {
	s         *Server
	failures  int
	lastClaim time.Time
	claimed   []redis.XMessage
}

// next returns a request, or false after a finite wait with none (or a Redis failure,
// logged and backed off).
func (r *reader) next(ctx context.Context) (redis.XMessage, bool) {
	s := r.s
	if len(r.claimed) > 0 {
		m := r.claimed[0]
		r.claimed = r.claimed[1:]
		return m, true
	}
	if err := s.ensureGroup(ctx); err != nil {
		if ctx.Err() == nil {
			r.failures++
			s.log.Warn("build requests: create group", "err", err)
			sleep(ctx, backoff(r.failures))
		}
		return redis.XMessage{}, false
	}
	if time.Since(r.lastClaim) >= s.idle/2 {
		r.lastClaim = time.Now()
		r.claimed = s.claimIdle(ctx)
		if len(r.claimed) > 0 {
			return r.next(ctx)
		}
	}
	res, err := s.rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: Group, Consumer: s.name,
		Streams: []string{s.keys.BuildRequests(), ">"}, Count: 1, Block: s.block}).Result()
	switch {
	case errors.Is(err, redis.Nil):
		r.failures = 0
		return redis.XMessage{}, false
	case err != nil:
		if ctx.Err() == nil {
			r.failures++
			s.log.Warn("build requests: read", "err", err)
			sleep(ctx, backoff(r.failures))
		}
		return redis.XMessage{}, false
	}
	r.failures = 0
	for _, st := range res {
		for _, m := range st.Messages {
			return m, true // Count: 1
		}
	}
	return redis.XMessage{}, false
}

// track marks a stream entry as being built here, or no longer.
func (s *Server) track(entry string, on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if on {
		s.inFlight[entry] = true
	} else {
		delete(s.inFlight, entry)
	}
}

func (s *Server) building(entry string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.inFlight[entry]
}

func (s *Server) ensureGroup(ctx context.Context) error {
	err := s.rdb.XGroupCreateMkStream(ctx, s.keys.BuildRequests(), Group, "0").Err()
	if err != nil && !strings.Contains(err.Error(), "BUSYGROUP") {
		return err
	}
	return nil
}

// claimIdle takes over requests a worker left pending (it died mid-build), as many as
// this server has slots; never one it is building itself.
func (s *Server) claimIdle(ctx context.Context) []redis.XMessage {
	msgs, _, err := s.rdb.XAutoClaim(ctx, &redis.XAutoClaimArgs{Stream: s.keys.BuildRequests(), Group: Group,
		Consumer: s.name, MinIdle: s.idle, Start: "0-0", Count: int64(s.slots)}).Result()
	if err != nil {
		if ctx.Err() == nil {
			s.log.Warn("build requests: claim idle", "err", err)
		}
		return nil
	}
	out := msgs[:0]
	for _, m := range msgs {
		if !s.building(m.ID) {
			out = append(out, m)
		}
	}
	return out
}

// keepClaimed resets the idle time of entry, being built here, every third of the claim
// idle time until done is closed: a build may take longer than ClaimIdle (up to the
// request's deadline), and another worker must not take over a live one.
func (s *Server) keepClaimed(ctx context.Context, entry string, done <-chan struct{}) {
	t := time.NewTicker(s.idle / 3)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-ctx.Done():
			return
		case <-t.C:
			err := s.rdb.XClaimJustID(ctx, &redis.XClaimArgs{Stream: s.keys.BuildRequests(), Group: Group,
				Consumer: s.name, MinIdle: 0, Messages: []string{entry}}).Err()
			if err != nil && ctx.Err() == nil {
				s.log.Warn("build requests: keep a request claimed", "entry", entry, "err", err)
			}
		}
	}
}

// handle builds one request, answers it and removes it from the stream.
func (s *Server) handle(ctx context.Context, m redis.XMessage) {
	defer s.remove(ctx, m.ID)
	id, _ := m.Values[FieldID].(string)
	sha, _ := m.Values[FieldSHA256].(string)
	ms, _ := m.Values[FieldDeadline].(string)
	trace, _ := m.Values[FieldTrace].(string)
	dl, err := strconv.ParseInt(ms, 10, 64)
	if !requestID.MatchString(id) || !objstore.ValidSHA256(sha) || err != nil {
		s.log.Warn("build requests: dropping a malformed request", "entry", m.ID)
		return
	}
	deadline := time.UnixMilli(dl)
	left := time.Until(deadline)
	if left <= 0 {
		s.log.Info("build requests: dropping a request nobody waits for", "sha256", sha, "trace_id", trace)
		return
	}
	// The build ends early enough for its answer to reach the API before it stops
	// waiting (the deadline is the API's clock; this margin also absorbs some skew).
	bctx, cancel := context.WithDeadline(ctx, deadline.Add(-min(replyMargin, left/10)))
	done := make(chan struct{})
	go s.keepClaimed(ctx, m.ID, done)
	start := time.Now()
	err = s.b.BuildTools(bctx, sha)
	close(done)
	cancel()
	r := Classify(err)
	r.Worker = s.name
	s.log.Info("tool build", "sha256", sha, "trace_id", trace, "status", r.Status, "source", r.Source,
		"seconds", time.Since(start).Seconds(), "err", err)
	if ctx.Err() != nil && r.Status == StatusFailed {
		return // shutting down: the API's wait runs out, the admin retries
	}
	key := s.keys.BuildReply(id)
	_, err = s.rdb.TxPipelined(context.WithoutCancel(ctx), func(p redis.Pipeliner) error {
		p.RPush(ctx, key, r.encode())
		p.Expire(ctx, key, ReplyTTL)
		return nil
	})
	if err != nil {
		s.log.Warn("build requests: reply", "sha256", sha, "trace_id", trace, "err", err)
	}
}

func (s *Server) remove(ctx context.Context, entry string) {
	key := s.keys.BuildRequests()
	_, err := s.rdb.TxPipelined(context.WithoutCancel(ctx), func(p redis.Pipeliner) error {
		p.XAck(ctx, key, Group, entry)
		p.XDel(ctx, key, entry)
		return nil
	})
	if err != nil {
		s.log.Warn("build requests: ack", "entry", entry, "err", err)
	}
}

// Classify turns a build's error into a reply.
func Classify(err error) Reply {
	if err == nil {
		return Reply{Status: StatusOK}
	}
	if tc, ok := judge.AsToolCompileError(err); ok {
		return Reply{Status: StatusCompileError, Kind: tc.Kind, Source: tc.Source, Message: tc.Output}
	}
	if tt, ok := judge.AsToolTimeoutError(err); ok && judge.IsPermanent(err) {
		return Reply{Status: StatusTimeout, Kind: tt.Kind, Source: tt.Source, Message: tt.Error()}
	}
	if judge.IsPermanent(err) {
		return Reply{Status: StatusInvalid, Message: err.Error()}
	}
	return Reply{Status: StatusFailed, Message: err.Error()}
}

func backoff(n int) time.Duration { return min(time.Duration(n)*200*time.Millisecond, 5*time.Second) }

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// String describes a reply for logs and error messages.
func (r Reply) String() string {
	if r.Source != "" {
		return fmt.Sprintf("%s (%s %s)", r.Status, r.Kind, r.Source)
	}
	return string(r.Status)
}

package build

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strconv"
	"strings"
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

// Server answers build requests (a worker's side). One request is built at a time: a
// build takes seconds of CPU, and other workers read the same stream.
type Server struct {
	rdb   redis.UniversalClient
	keys  stream.Keys
	b     Builder
	name  string
	log   *slog.Logger
	block time.Duration
	idle  time.Duration
}

// NewServer returns a server reading requests as consumer name.
func NewServer(rdb redis.UniversalClient, keys stream.Keys, b Builder, name string, log *slog.Logger) *Server {
	return &Server{rdb: rdb, keys: keys, b: b, name: name, log: log, block: 2 * time.Second, idle: ClaimIdle}
}

var requestID = regexp.MustCompile(`^[0-9a-f]{32}$`)

// Run answers requests until ctx ends. Redis failures are logged and retried.
func (s *Server) Run(ctx context.Context) error {
	failures := 0
	lastClaim := time.Time{}
	for ctx.Err() == nil {
		if err := s.ensureGroup(ctx); err != nil {
			failures++
			s.log.Warn("build requests: create group", "err", err)
			sleep(ctx, backoff(failures))
			continue
		}
		if time.Since(lastClaim) >= s.idle/2 {
			lastClaim = time.Now()
			s.claimIdle(ctx)
		}
		res, err := s.rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: Group, Consumer: s.name,
			Streams: []string{s.keys.BuildRequests(), ">"}, Count: 1, Block: s.block}).Result()
		switch {
		case errors.Is(err, redis.Nil):
			failures = 0
			continue
		case err != nil:
			if ctx.Err() != nil {
				return nil
			}
			failures++
			s.log.Warn("build requests: read", "err", err)
			sleep(ctx, backoff(failures))
			continue
		}
		failures = 0
		for _, st := range res {
			for _, m := range st.Messages {
				s.handle(ctx, m)
			}
		}
	}
	return nil
}

func (s *Server) ensureGroup(ctx context.Context) error {
	err := s.rdb.XGroupCreateMkStream(ctx, s.keys.BuildRequests(), Group, "0").Err()
	if err != nil && !strings.Contains(err.Error(), "BUSYGROUP") {
		return err
	}
	return nil
}

// claimIdle takes over requests a worker left pending (it died mid-build).
func (s *Server) claimIdle(ctx context.Context) {
	msgs, _, err := s.rdb.XAutoClaim(ctx, &redis.XAutoClaimArgs{Stream: s.keys.BuildRequests(), Group: Group,
		Consumer: s.name, MinIdle: s.idle, Start: "0-0", Count: 10}).Result()
	if err != nil {
		if ctx.Err() == nil {
			s.log.Warn("build requests: claim idle", "err", err)
		}
		return
	}
	for _, m := range msgs {
		s.handle(ctx, m)
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
	if !time.Now().Before(deadline) {
		s.log.Info("build requests: dropping a request nobody waits for", "sha256", sha, "trace_id", trace)
		return
	}
	bctx, cancel := context.WithDeadline(ctx, deadline)
	start := time.Now()
	err = s.b.BuildTools(bctx, sha)
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

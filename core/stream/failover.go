package stream

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
)

// During a failover Redis answers with errors that mean "not here, not now": a demoted
// master refuses writes (READONLY), a restarted node is still reading its AOF (LOADING),
// a replica lost its master (MASTERDOWN), a Cluster lost a shard's quorum or moves a slot
// (CLUSTERDOWN, TRYAGAIN, MOVED, ASK), a promoted node has no stream or group yet
// (NOGROUP), a master without its replicas refuses writes (NOREPLICAS, with
// min-replicas-to-write), and connections to the dead node reset. go-redis retries a few of them
// itself and follows the Sentinels and the slot map; what still reaches oj is counted
// here by kind, and every loop that meets one backs off with a bound (each loop's own
// backoff) so that none spins while the pair settles. NOGROUP is repaired by creating
// the group again (EnsureGroup is idempotent); the reconciler re-drives what the lost
// entries carried, from PostgreSQL.

// Kinds of Redis error, the label of oj_redis_errors_total.
const (
	KindReadOnly    = "readonly"
	KindLoading     = "loading"
	KindMasterDown  = "masterdown"
	KindClusterDown = "clusterdown"
	KindTryAgain    = "tryagain"
	KindMoved       = "moved"
	KindAsk         = "ask"
	KindNoReplicas  = "noreplicas"
	KindNoGroup     = "nogroup"
	KindConnection  = "connection"
	KindTimeout     = "timeout"
	KindAuth        = "auth"
	KindOther       = "other"
)

// replyPrefixes are the error replies' first words, each with its kind.
var replyPrefixes = []struct{ prefix, kind string }{
	{"READONLY", KindReadOnly}, {"LOADING", KindLoading}, {"MASTERDOWN", KindMasterDown},
	{"CLUSTERDOWN", KindClusterDown}, {"TRYAGAIN", KindTryAgain}, {"MOVED", KindMoved}, {"ASK", KindAsk},
	{"NOREPLICAS", KindNoReplicas}, {"NOGROUP", KindNoGroup},
	{"NOAUTH", KindAuth}, {"WRONGPASS", KindAuth}, {"NOPERM", KindAuth},
}

// ErrorKind names the kind of a Redis error; "" for no error, redis.Nil (an empty
// answer) and a cancelled context (oj stopping).
func ErrorKind(err error) string {
	switch {
	case err == nil, errors.Is(err, redis.Nil), errors.Is(err, context.Canceled):
		return ""
	}
	msg := err.Error()
	for _, p := range replyPrefixes {
		if strings.HasPrefix(msg, p.prefix+" ") || strings.Contains(msg, ": "+p.prefix+" ") {
			return p.kind
		}
	}
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return KindTimeout
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.EPIPE), errors.Is(err, net.ErrClosed),
		errors.As(err, new(*net.OpError)), strings.Contains(msg, "redis: all sentinels"):
		return KindConnection
	}
	return KindOther
}

// ClientMetrics count the Redis errors that reached oj.
type ClientMetrics struct {
	Errors *prometheus.CounterVec
}

// NewClientMetrics registers the client's metrics with reg (nil: not registered).
func NewClientMetrics(reg prometheus.Registerer) *ClientMetrics {
	m := &ClientMetrics{Errors: prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "oj_redis_errors_total",
		Help: "Redis commands that failed after the client's own retries and redirects, by kind " +
			"(readonly, loading, masterdown, clusterdown, tryagain, moved, ask, noreplicas, nogroup, connection, timeout, auth, other).",
	}, []string{"kind"})}
	if reg != nil {
		reg.MustRegister(m.Errors)
	}
	return m
}

// errorHook counts each command's final error by kind.
type errorHook struct{ m *ClientMetrics }

func (h errorHook) count(err error) {
	if err != nil && strings.HasPrefix(err.Error(), "BUSYGROUP") {
		return // EnsureGroup's usual answer: the group exists
	}
	if k := ErrorKind(err); k != "" {
		h.m.Errors.WithLabelValues(k).Inc()
	}
}

func (h errorHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h errorHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		h.count(err)
		return err
	}
}

func (h errorHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		for _, c := range cmds {
			h.count(c.Err())
		}
		return err
	}
}

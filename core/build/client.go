package build

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"oj/core/stream"
)

// ErrNoAnswer means no worker answered within the timeout.
var ErrNoAnswer = errors.New("no worker answered the build request")

// waitSlice bounds one BLPOP, so that a caller that gives up (its context ends) stops
// waiting soon: go-redis does not interrupt a blocking command when a context is
// canceled without a deadline.
const waitSlice = 2 * time.Second

// Client sends build requests and waits for their answers (the API's side).
type Client struct {
	rdb     redis.UniversalClient
	keys    stream.Keys
	timeout time.Duration
}

// NewClient returns a client whose requests wait at most timeout for a worker.
func NewClient(rdb redis.UniversalClient, keys stream.Keys, timeout time.Duration) *Client {
	return &Client{rdb: rdb, keys: keys, timeout: timeout}
}

// Timeout is how long Build waits for an answer.
func (c *Client) Timeout() time.Duration { return c.timeout }

// Build asks a worker to build the tools of the package with the given sha256 (already
// in the object store) and returns its reply; ErrNoAnswer when none came within the
// timeout, another error when Redis failed.
func (c *Client) Build(ctx context.Context, sha, traceID string) (Reply, error) {
	var raw [16]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return Reply{}, err
	}
	id := hex.EncodeToString(raw[:])
	deadline := time.Now().Add(c.timeout)
	err := c.rdb.XAdd(ctx, &redis.XAddArgs{Stream: c.keys.BuildRequests(), MaxLen: MaxRequests, Approx: true,
		Values: []any{FieldID, id, FieldSHA256, sha, FieldDeadline, strconv.FormatInt(deadline.UnixMilli(), 10),
			FieldTrace, traceID}}).Err()
	if err != nil {
		return Reply{}, fmt.Errorf("send build request: %w", err)
	}
	key := c.keys.BuildReply(id)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return Reply{}, ErrNoAnswer
		}
		if err := ctx.Err(); err != nil {
			return Reply{}, err
		}
		// go-redis sends BLPOP's timeout in whole seconds: at least 1.
		res, err := c.rdb.BLPop(ctx, max(min(left, waitSlice), time.Second), key).Result()
		if errors.Is(err, redis.Nil) {
			continue
		}
		if err != nil {
			return Reply{}, fmt.Errorf("wait for build reply: %w", err)
		}
		var r Reply
		if err := json.Unmarshal([]byte(res[1]), &r); err != nil {
			return Reply{}, fmt.Errorf("build reply: %w", err)
		}
		return r, nil
	}
}

package build

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"oj/core/judge"
	"oj/core/judge/objstore"
	"oj/core/testenv"
)

// fakeBuilder answers BuildTools from a table keyed by sha256 and counts the calls.
type fakeBuilder struct {
	mu    sync.Mutex
	errs  map[string]error
	calls map[string]int
}

func (f *fakeBuilder) BuildTools(_ context.Context, sha string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls[sha]++
	return f.errs[sha]
}

func (f *fakeBuilder) count(sha string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[sha]
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func sha(s string) string { return objstore.SHA256Hex([]byte(s)) }

// serve runs a server until the test ends.
func serve(t *testing.T, s *Server) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = s.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
}

func TestRequestsAreAnswered(t *testing.T) {
	t.Parallel()
	st := testenv.Streams(t, testenv.RedisAddr(t))
	compileErr := judge.Permanent(&judge.ToolCompileError{Kind: "checker", Source: "check.cpp", Output: "check.cpp:1: error"})
	f := &fakeBuilder{calls: map[string]int{}, errs: map[string]error{
		sha("bad"):     compileErr,
		sha("garbage"): judge.Permanent(errors.New("problem.yaml: missing")),
		sha("flaky"):   errors.New("compile cut short by its time limit"),
	}}
	serve(t, NewServer(st.Client(), st.Keys, f, "w1", 1, quiet()))
	c := NewClient(st.Client(), st.Keys, time.Minute)
	ctx := context.Background()
	cases := []struct {
		sha  string
		want Reply
	}{
		{sha("good"), Reply{Status: StatusOK, Worker: "w1"}},
		{sha("bad"), Reply{Status: StatusCompileError, Kind: "checker", Source: "check.cpp", Message: "check.cpp:1: error", Worker: "w1"}},
		{sha("garbage"), Reply{Status: StatusInvalid, Message: "problem.yaml: missing", Worker: "w1"}},
		{sha("flaky"), Reply{Status: StatusFailed, Message: "compile cut short by its time limit", Worker: "w1"}},
	}
	for _, tc := range cases {
		got, err := c.Build(ctx, tc.sha, "trace")
		if err != nil || got != tc.want {
			t.Errorf("build %s: %+v %v, want %+v", tc.sha[:8], got, err, tc.want)
		}
	}
	// The worker pushes its reply before it acks and deletes the request: the last one may
	// still be on its way out when the reply arrives.
	deadline := time.Now().Add(10 * time.Second)
	for {
		n, err := st.Client().XLen(ctx, st.Keys.BuildRequests()).Result()
		if err == nil && n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d answered requests still in the stream after 10 s (err %v)", n, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestNoWorkerIsNoAnswer(t *testing.T) {
	t.Parallel()
	st := testenv.Streams(t, testenv.RedisAddr(t))
	_, err := NewClient(st.Client(), st.Keys, time.Second).Build(context.Background(), sha("x"), "")
	if !errors.Is(err, ErrNoAnswer) {
		t.Fatalf("err = %v, want ErrNoAnswer", err)
	}
}

// A request nobody waits for any more is dropped unbuilt; one a dead worker left pending
// is taken over by another worker and answered.
func TestStaleAndAbandonedRequests(t *testing.T) {
	t.Parallel()
	st := testenv.Streams(t, testenv.RedisAddr(t))
	rdb, key := st.Client(), st.Keys.BuildRequests()
	ctx := context.Background()
	add := func(id, sha string, deadline time.Time) {
		t.Helper()
		err := rdb.XAdd(ctx, &redis.XAddArgs{Stream: key, Values: []any{FieldID, id, FieldSHA256, sha,
			FieldDeadline, strconv.FormatInt(deadline.UnixMilli(), 10)}}).Err()
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := rdb.XGroupCreateMkStream(ctx, key, Group, "0").Err(); err != nil {
		t.Fatal(err)
	}
	stale, abandoned := "0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210"
	add(stale, sha("stale"), time.Now().Add(-time.Second))
	add(abandoned, sha("abandoned"), time.Now().Add(time.Minute))
	// A worker reads both and dies before answering.
	if err := rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: Group, Consumer: "dead", Streams: []string{key, ">"},
		Count: 10, Block: time.Second}).Err(); err != nil {
		t.Fatal(err)
	}
	f := &fakeBuilder{calls: map[string]int{}, errs: map[string]error{}}
	s := NewServer(rdb, st.Keys, f, "w2", 1, quiet())
	s.idle = 100 * time.Millisecond
	serve(t, s)
	res, err := rdb.BLPop(ctx, 20*time.Second, st.Keys.BuildReply(abandoned)).Result()
	if err != nil || res[1] != (Reply{Status: StatusOK, Worker: "w2"}).encode() {
		t.Fatalf("abandoned request's reply: %v %v", res, err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		n, _ := rdb.XLen(ctx, key).Result()
		p, _ := rdb.XPending(ctx, key, Group).Result()
		if n == 0 && p != nil && p.Count == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("stream still holds %d entries, %+v pending", n, p)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if f.count(sha("stale")) != 0 || f.count(sha("abandoned")) != 1 {
		t.Fatalf("built stale %d times, abandoned %d times; want 0 and 1", f.count(sha("stale")), f.count(sha("abandoned")))
	}
	if n, _ := rdb.Exists(ctx, st.Keys.BuildReply(stale)).Result(); n != 0 {
		t.Fatal("a stale request was answered")
	}
}

// blockingBuilder blocks the build of one sha256 until released (or its context ends)
// and answers the others at once, counting every build.
type blockingBuilder struct {
	fakeBuilder
	blocked  string
	started  chan struct{} // closed when the blocked build has started
	release  chan struct{}
	startOne sync.Once
}

func (b *blockingBuilder) BuildTools(ctx context.Context, sha string) error {
	err := b.fakeBuilder.BuildTools(ctx, sha)
	if sha != b.blocked {
		return err
	}
	b.startOne.Do(func() { close(b.started) })
	select {
	case <-b.release:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// A worker builds as many requests at once as it has slots: a build that blocks does
// not hold up the next request. And a build that takes longer than the claim idle time
// stays its worker's: no other worker (nor the same) takes it over and builds it again.
func TestBuildsRunConcurrentlyAndStayClaimed(t *testing.T) {
	t.Parallel()
	st := testenv.Streams(t, testenv.RedisAddr(t))
	b := &blockingBuilder{fakeBuilder: fakeBuilder{calls: map[string]int{}, errs: map[string]error{}},
		blocked: sha("blocks"), started: make(chan struct{}), release: make(chan struct{})}
	for _, name := range []string{"w1", "w2"} {
		s := NewServer(st.Client(), st.Keys, b, name, 2, quiet())
		s.idle, s.block = 300*time.Millisecond, 50*time.Millisecond
		serve(t, s)
	}
	c := NewClient(st.Client(), st.Keys, time.Minute)
	ctx := context.Background()
	blocked := make(chan Reply, 1)
	go func() {
		r, err := c.Build(ctx, sha("blocks"), "")
		if err != nil {
			t.Error(err)
		}
		blocked <- r
	}()
	<-b.started
	if r, err := c.Build(ctx, sha("quick"), ""); err != nil || r.Status != StatusOK {
		t.Fatalf("a build behind a blocked one: %+v %v", r, err)
	}
	select {
	case r := <-blocked:
		t.Fatalf("the blocked build answered before it was released: %+v", r)
	default:
	}
	// Over three claim idle times, while both workers look for idle requests (were the
	// build taken over, it would run again; on a machine too slow for a look meanwhile
	// the test proves less but does not fail).
	time.Sleep(time.Second)
	close(b.release)
	if r := <-blocked; r.Status != StatusOK {
		t.Fatalf("the blocked build: %+v", r)
	}
	if n := b.count(sha("blocks")); n != 1 {
		t.Fatalf("the long build ran %d times, want once", n)
	}
}

func TestClassifyNamesTheBoundOfACutBuild(t *testing.T) {
	t.Parallel()
	err := fmt.Errorf("build checker.cpp: %w", judge.Permanent(&judge.ToolTimeoutError{Kind: "checker", Source: "checker.cpp",
		Key: judge.KeyToolCompileWall, Bound: time.Minute}))
	want := Reply{Status: StatusTimeout, Kind: "checker", Source: "checker.cpp",
		Message: "checker.cpp: the compile did not finish within judge.tool_compile.wall (60s)"}
	if got := Classify(err); got != want {
		t.Fatalf("Classify = %+v, want %+v", got, want)
	}
}

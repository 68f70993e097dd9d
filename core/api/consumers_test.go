package api_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"oj/core/job"
	"oj/core/stream"
	"oj/core/wire"
)

// GET /admin/v1/workers on the stack's Redis: idle_ms for every consumer; inactive_ms
// null where Redis does not report it (before 7.2, so never a made-up 0), else -1 for a
// consumer that never got an entry.
func TestWorkersInactiveIsNullOrNeverNotZero(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{noWorker: true})
	ctx := context.Background()
	lane := job.Lane("light")
	id := e.submit(e.alice, "print(1)")
	var got []stream.Entry
	for deadline := time.Now().Add(10 * time.Second); len(got) == 0; {
		entries, err := e.streams.Read(ctx, lane, "reader", 10, 10*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		got = entries
		if len(got) == 0 && time.Now().After(deadline) {
			t.Fatalf("submission %s never reached the stream", id)
		}
	}
	rdb := e.streams.Client()
	if err := rdb.XGroupCreateConsumer(ctx, e.streams.Keys.Jobs(lane), stream.Group, "idler").Err(); err != nil {
		t.Fatal(err)
	}
	version, err := e.streams.RedisVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	f := strings.SplitN(version, ".", 3)
	major, _ := strconv.Atoi(f[0])
	minor, _ := strconv.Atoi(f[1])
	has := major > 7 || major == 7 && minor >= 2

	w, err := e.admin.Workers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]wire.Consumer{}
	for _, l := range w.Lanes {
		if l.Lane == string(lane) {
			for _, c := range l.Consumers {
				seen[c.Name] = c
			}
		}
	}
	reader, idler := seen["reader"], seen["idler"]
	if reader.Name == "" || idler.Name == "" || reader.Pending != 1 || reader.IdleMS < 0 || idler.IdleMS < 0 {
		t.Fatalf("consumers of %s = %+v", lane, seen)
	}
	switch {
	case !has && (reader.InactiveMS != nil || idler.InactiveMS != nil):
		t.Fatalf("Redis %s has no inactive field, yet inactive_ms = %s, %s", version, showMS(reader.InactiveMS), showMS(idler.InactiveMS))
	case has && (reader.InactiveMS == nil || *reader.InactiveMS < 0 || idler.InactiveMS == nil || *idler.InactiveMS != -1):
		t.Fatalf("Redis %s: inactive_ms reader %s idler %s, want >= 0 and -1", version, showMS(reader.InactiveMS), showMS(idler.InactiveMS))
	}
	// On the wire: null, not a missing field or 0.
	_, _, raw := e.raw("GET", "/admin/v1/workers", tokenOf(e.admin), nil, nil)
	if lanes, _ := raw["lanes"].([]any); len(lanes) == 0 {
		t.Fatalf("workers JSON = %v", raw)
	}
	for _, l := range raw["lanes"].([]any) {
		for _, c := range l.(map[string]any)["consumers"].([]any) {
			v, ok := c.(map[string]any)["inactive_ms"]
			if !ok || !has && v != nil {
				t.Fatalf("consumer JSON %v: inactive_ms must be present, and null on Redis %s", c, version)
			}
		}
	}
	t.Logf("Redis %s: reader idle %d ms, idler idle %d ms, inactive known: %v", version, reader.IdleMS, idler.IdleMS, has)
}

func showMS(v *int64) string {
	if v == nil {
		return "null"
	}
	return strconv.FormatInt(*v, 10)
}

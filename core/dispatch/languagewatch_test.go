package dispatch_test

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"oj/core/store"
)

// The last live worker of a language does not go quiet: oj_language_workers follows it
// from active to quarantined, and stays at 0 once it stopped.
func TestLanguageWorkersGaugeFollowsTheLastWorker(t *testing.T) {
	t.Parallel()
	h := newHookEnv(t, nil)
	ctx := context.Background()
	d, m := h.dispatcher()
	if _, _, err := store.AnnounceWorker(ctx, h.db, "only", store.Announcement{Lanes: map[string]int{"heavy": 1},
		Languages: []string{"cpp17"}}); err != nil {
		t.Fatal(err)
	}
	gauge := func(state string) float64 {
		return testutil.ToFloat64(m.LanguageWorkers.WithLabelValues("cpp17", state))
	}
	d.WatchLanguagesOnce(ctx)
	if gauge("active") != 1 || gauge("quarantined") != 0 {
		t.Fatalf("active %v, quarantined %v; want 1, 0", gauge("active"), gauge("quarantined"))
	}
	if _, err := store.Quarantine(ctx, h.db, "only", "the last 5 attempts ended in system errors", nil, time.Now()); err != nil {
		t.Fatal(err)
	}
	d.WatchLanguagesOnce(ctx)
	if gauge("active") != 0 || gauge("quarantined") != 1 {
		t.Fatalf("after the quarantine: active %v, quarantined %v; want 0, 1", gauge("active"), gauge("quarantined"))
	}
	if err := store.WorkerGone(ctx, h.db, "only"); err != nil {
		t.Fatal(err)
	}
	d.WatchLanguagesOnce(ctx)
	if gauge("active") != 0 || gauge("quarantined") != 0 {
		t.Fatalf("after it stopped: active %v, quarantined %v; want both 0, still exported", gauge("active"), gauge("quarantined"))
	}
}

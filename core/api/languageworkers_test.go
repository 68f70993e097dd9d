package api_test

import (
	"context"
	"testing"
	"time"

	"oj/core/store"
	"oj/core/wire"
	"oj/core/worker"
)

// The overview says which configured languages no live, active worker runs: none live
// for java17 here, and, once the only worker quarantines itself, its languages name it.
func TestOverviewNamesLanguagesWithoutAnActiveWorker(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOpts{workerCfg: func(c *worker.Config) { c.Name = "only"; c.Languages = []string{"python3", "cpp17"} }})
	ctx := context.Background()
	byLang := func() map[string]wire.LanguageWorkers {
		ov, err := e.admin.Overview(ctx)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]wire.LanguageWorkers{}
		for _, l := range ov.Languages {
			out[l.Language] = l
		}
		return out
	}
	waitLang := func(lang string, ok func(wire.LanguageWorkers) bool) {
		t.Helper()
		deadline := time.Now().Add(15 * time.Second)
		for {
			l := byLang()
			if ok(l[lang]) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("overview languages: %+v", l)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	waitLang("cpp17", func(l wire.LanguageWorkers) bool { return l.Live == 1 && l.Active == 1 && l.Problem == "" })
	if l := byLang()["java17"]; l.Live != 0 || l.Problem != "no live worker runs java17" {
		t.Fatalf("java17: %+v", l)
	}
	if _, err := store.Quarantine(ctx, e.db, "only", "the last 5 attempts ended in system errors", nil, time.Now()); err != nil {
		t.Fatal(err)
	}
	waitLang("cpp17", func(l wire.LanguageWorkers) bool {
		return l.Live == 1 && l.Active == 0 && l.Quarantined == 1 && l.Problem == "its only live worker, only, is quarantined"
	})
	if l := byLang()["python3"]; l.Problem != "its only live worker, only, is quarantined" {
		t.Fatalf("python3: %+v", l)
	}
}

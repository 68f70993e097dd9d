package bench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"runtime"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"oj/core/api"
	"oj/core/api/client"
	"oj/core/job"
	"oj/core/judge/lang"
	"oj/core/judge/objstore"
	"oj/core/judge/problem"
	"oj/core/store"
	"oj/core/stream"
	"oj/core/testenv"
	"oj/tui"
	"oj/tui/styles"
)

const (
	streamEntries  = 100_000
	pendingEntries = 10_000
	// submissions fill PostgreSQL so the Submissions view's call returns a full page.
	submissions = 20_000
)

// BenchmarkDashboardRefresh: go test -run '^$' -bench DashboardRefresh -benchtime 50x ./tui/bench/
// (make bench BENCH=DashboardRefresh PKGS=./tui/bench/ BENCHTIME=50x).
func BenchmarkDashboardRefresh(b *testing.B) {
	if os.Getenv("OJ_TEST_POSTGRES_URL") == "" || os.Getenv("OJ_TEST_REDIS_ADDR") == "" {
		b.Skip("OJ_TEST_POSTGRES_URL and OJ_TEST_REDIS_ADDR not set (make bench sets them)")
	}
	ctx := context.Background()
	db := testenv.Pool(b, testenv.Schema(b, testenv.PostgresURL(b)))
	streams := testenv.Streams(b, testenv.RedisAddr(b))
	fixture(b, streams)
	if _, err := db.Exec(ctx, `INSERT INTO submissions (id, problem_id, problem_version, language, lane, source,
		    state, attempt, verdict, score, time_ms, memory_kb, trace_id, created_at, finished_at)
		SELECT gen_random_uuid(), 'p' || (i % 40), 1, 'cpp17', 'heavy', 'int main() {}', 'finished', 1,
		       (ARRAY['AC', 'WA', 'TLE'])[i % 3 + 1], 100, i % 1000, 3400, 'bench',
		       now() - i * interval '1 second', now() - i * interval '1 second'
		  FROM generate_series(1, $1) AS i`, submissions); err != nil {
		b.Fatal(err)
	}
	if _, err := db.Exec(ctx, `ANALYZE submissions`); err != nil {
		b.Fatal(err)
	}

	objects, err := objstore.NewFS(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	cfg := api.DefaultConfig()
	cfg.Limits.UserRate, cfg.Limits.GlobalRate = 0, 0
	reg := prometheus.NewRegistry()
	srv := api.New(cfg, api.Deps{DB: db, Streams: streams, Languages: lang.Default(), Objects: objects,
		PackageLimits: problem.DefaultLimits(), Registerer: reg, Gatherer: reg, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	sctx, stop := context.WithCancel(ctx)
	b.Cleanup(stop)
	srv.Start(sctx)
	hs := httptest.NewServer(srv.Handler())
	b.Cleanup(hs.Close)
	token, err := store.CreateToken(ctx, db, "bench", "admin")
	if err != nil {
		b.Fatal(err)
	}
	c := client.New(hs.URL, token)

	b.Run("overview-endpoint", func(b *testing.B) {
		for range b.N {
			ov, err := c.Overview(ctx)
			if err != nil {
				b.Fatal(err)
			}
			if ov.Lanes[0].Length < streamEntries {
				b.Fatalf("overview: %+v", ov.Lanes)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
	})

	b.Run("full-refresh", func(b *testing.B) {
		m := tui.New(tui.Config{Source: c, Server: hs.URL, Styles: styles.Plain()})
		m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
		var pending int64
		var listed int
		for range b.N {
			s, err := tui.Fetch(ctx, c, time.Now)
			if err != nil {
				b.Fatal(err)
			}
			m.Update(tui.RefreshMsg(s, nil))
			if v := m.View(); len(v) == 0 {
				b.Fatal("empty view")
			}
			pending, listed = s.Overview.Lanes[0].Pending, len(s.Submissions.Items)
		}
		b.StopTimer()
		if pending < pendingEntries || listed != 500 {
			b.Fatalf("pending %d, submissions listed %d", pending, listed)
		}
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
		b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MiB")
		fmt.Fprintf(os.Stdout, "\ndashboard refresh, %d stream entries, %d pending, %d submissions: %.2f ms per refresh; heap in use %.1f MiB, sys %.1f MiB (process incl. the in-test API server)\n",
			streamEntries, pendingEntries, submissions, float64(b.Elapsed().Microseconds())/1000/float64(b.N), float64(ms.HeapInuse)/(1<<20), float64(ms.Sys)/(1<<20))
	})
}

// fixture writes streamEntries entries to the light lane and leaves pendingEntries of them
// delivered and unacknowledged, spread over two consumers.
func fixture(b *testing.B, s *stream.Streams) {
	b.Helper()
	ctx := context.Background()
	for _, l := range []job.Lane{"light", "heavy", "rejudge"} {
		if err := s.EnsureGroup(ctx, l); err != nil {
			b.Fatal(err)
		}
	}
	key := s.Keys.Jobs("light")
	rdb := s.Client()
	for i := 0; i < streamEntries; i += 5000 {
		pipe := rdb.Pipeline()
		for j := i; j < min(i+5000, streamEntries); j++ {
			pipe.XAdd(ctx, &redis.XAddArgs{Stream: key, Values: []any{stream.FieldSubmission, uuid.NewString(), stream.FieldTrace, "bench"}})
		}
		if _, err := pipe.Exec(ctx); err != nil {
			b.Fatal(err)
		}
	}
	for i := 0; i < pendingEntries; i += 1000 {
		consumer := fmt.Sprintf("bench-worker-%d", i/1000%2)
		if err := rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: stream.Group, Consumer: consumer,
			Streams: []string{key, ">"}, Count: 1000, Block: -1}).Err(); err != nil {
			b.Fatal(err)
		}
	}
}

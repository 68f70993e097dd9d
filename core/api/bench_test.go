package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"sync"
	"testing"
	"time"

	"oj/core/api"
	"oj/core/api/client"
	"oj/core/wire"
	"oj/core/worker"
)

// BenchmarkSubmitLoad measures the submit call under a steady 500 submissions/s for 20 s
// (open loop: each request leaves at its scheduled time, whatever the previous ones do),
// with the whole pipeline in this process and an immediate judge; then offers 5× the
// global bucket's rate for 5 s and counts 429s, 5xx and accepted submissions that never
// reached a terminal state. Run: go test -run '^$' -bench SubmitLoad -benchtime 1x ./core/api/
func BenchmarkSubmitLoad(b *testing.B) {
	const (
		steadyRate = 500
		steadyFor  = 20 * time.Second
		bucketRate = 600 // global bucket: the steady phase fits under it
		floodFor   = 5 * time.Second
		users      = 10
	)
	e := newEnv(b, envOpts{
		limits: func(l *api.Limits) {
			l.GlobalRate, l.GlobalBurst = bucketRate, bucketRate/2
			l.UserRate, l.UserBurst = bucketRate, bucketRate/2
			l.AuthCacheTTL = 5 * time.Second
		},
		workerCfg: func(c *worker.Config) { c.Concurrency = map[string]int{"light": 64, "heavy": 16} },
	})
	clients := make([]*client.Client, users)
	for i := range clients {
		clients[i] = e.client(fmt.Sprintf("bench-%d", i), "user")
	}
	httpc := &http.Client{Transport: &http.Transport{MaxIdleConns: 2048, MaxIdleConnsPerHost: 2048}, Timeout: 30 * time.Second}
	body, _ := json.Marshal(wire.SubmitRequest{ProblemID: "aplusb", Language: "python3", Source: "print(sum(map(int, input().split())))"})

	type sample struct {
		status  int
		latency time.Duration
		id      string
	}
	run := func(rate int, d time.Duration) []sample {
		n := int(float64(rate) * d.Seconds())
		out := make([]sample, n)
		interval := time.Second / time.Duration(rate)
		start := time.Now()
		var wg sync.WaitGroup
		for i := 0; i < n; i++ {
			if wait := time.Until(start.Add(time.Duration(i) * interval)); wait > 0 {
				time.Sleep(wait)
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				req, _ := http.NewRequest("POST", e.http.URL+"/api/v1/submissions", bytes.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+clients[i%users].Token)
				req.Header.Set("Content-Type", "application/json")
				t0 := time.Now()
				resp, err := httpc.Do(req)
				if err != nil {
					out[i] = sample{status: -1, latency: time.Since(t0)}
					return
				}
				var acc wire.Accepted
				if resp.StatusCode < 300 {
					_ = json.NewDecoder(resp.Body).Decode(&acc)
				} else {
					_, _ = io.Copy(io.Discard, resp.Body)
				}
				resp.Body.Close()
				out[i] = sample{status: resp.StatusCode, latency: time.Since(t0), id: acc.ID}
			}()
		}
		wg.Wait()
		return out
	}
	pct := func(s []sample, p float64) time.Duration {
		lat := make([]time.Duration, 0, len(s))
		for _, x := range s {
			if x.status >= 200 && x.status < 300 {
				lat = append(lat, x.latency)
			}
		}
		if len(lat) == 0 {
			return 0
		}
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		return lat[min(len(lat)-1, int(float64(len(lat))*p))]
	}
	tally := func(s []sample) (ok, limited, fivexx, other int, ids []string) {
		for _, x := range s {
			switch {
			case x.status >= 200 && x.status < 300:
				ok++
				ids = append(ids, x.id)
			case x.status == 429:
				limited++
			case x.status >= 500:
				fivexx++
			default:
				other++
			}
		}
		return
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

	for range b.N {
		steady := run(steadyRate, steadyFor)
		time.Sleep(time.Second) // let the buckets refill
		flood := run(5*bucketRate, floodFor)

		sOK, s429, s5xx, sOther, sIDs := tally(steady)
		fOK, f429, f5xx, fOther, fIDs := tally(flood)
		lost := e.countNotTerminal(append(sIDs, fIDs...), 60*time.Second)

		p50, p99, pmax := pct(steady, 0.50), pct(steady, 0.99), pct(steady, 1)
		fp99 := pct(flood, 0.99)
		b.ReportMetric(ms(p50), "p50-ms")
		b.ReportMetric(ms(p99), "p99-ms")
		b.ReportMetric(float64(f429)/float64(len(flood)), "flood-429-share")
		b.ReportMetric(float64(s5xx+f5xx), "5xx")
		b.ReportMetric(float64(lost), "lost")
		w := os.Stdout
		fmt.Fprintf(w, "\nsubmit latency, pipeline in-process, immediate judge\n")
		fmt.Fprintf(w, "%-28s %10s %8s %8s %8s %8s %10s %10s %10s\n", "phase", "offered", "2xx", "429", "5xx", "other", "p50", "p99", "max")
		fmt.Fprintf(w, "%-28s %10d %8d %8d %8d %8d %10.2f %10.2f %10.2f\n", fmt.Sprintf("steady %d/s for %s", steadyRate, steadyFor),
			len(steady), sOK, s429, s5xx, sOther, ms(p50), ms(p99), ms(pmax))
		fmt.Fprintf(w, "%-28s %10d %8d %8d %8d %8d %10.2f %10.2f %10.2f\n", fmt.Sprintf("flood %d/s for %s", 5*bucketRate, floodFor),
			len(flood), fOK, f429, f5xx, fOther, ms(pct(flood, 0.5)), ms(fp99), ms(pct(flood, 1)))
		fmt.Fprintf(w, "flood: 429 share %.1f%%; accepted in both phases %d, not terminal after the drain: %d\n\n",
			100*float64(f429)/float64(len(flood)), len(sIDs)+len(fIDs), lost)
	}
}

// countNotTerminal waits up to timeout for ids to be terminal and returns how many are not.
func (e *env) countNotTerminal(ids []string, timeout time.Duration) int {
	deadline := time.Now().Add(timeout)
	for {
		var n int
		if err := e.db.QueryRow(context.Background(), `SELECT count(*) FROM unnest($1::uuid[]) AS i(id)
			LEFT JOIN submissions s ON s.id = i.id
			WHERE s.id IS NULL OR s.state NOT IN ('finished', 'dead', 'canceled')`, ids).Scan(&n); err != nil {
			e.t.Fatal(err)
		}
		if n == 0 || time.Now().After(deadline) {
			return n
		}
		time.Sleep(200 * time.Millisecond)
	}
}

package e2e_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// BenchmarkJudge0Face: Judge0-shaped submissions per second through the whole system
// (POST /judge0/submissions, the run stored with its outbox row, relayed, judged in the
// sandbox, read back by GET /judge0/submissions/batch) against the same programs through
// oj's own runs API (POST /api/v1/runs, GET /api/v1/runs/{id}), alternating in rounds
// on 2 run slots.
func BenchmarkJudge0Face(b *testing.B) {
	s := newSystem(b, 2)
	c := judge0On(b, s, nil)
	root := strings.TrimSuffix(c.base, "/judge0")
	n := max(b.N, 100) / runsBenchRounds * runsBenchRounds
	src := "print(sum(map(int, input().split())))\n"
	judge0Round := func(k int) {
		tokens := make([]string, k)
		for i := range tokens {
			tokens[i] = c.create("", map[string]any{"language_id": 71, "source_code": src, "stdin": "1 2", "expected_output": "3"})
		}
		for start := 0; start < k; start += 20 {
			batch := tokens[start:min(start+20, k)]
			for {
				_, _, body := c.do("GET", "/submissions/batch?fields=status_id&tokens="+strings.Join(batch, ","), nil, as(c.user)...)
				var got struct{ Submissions []map[string]any }
				if err := json.Unmarshal(body, &got); err != nil {
					b.Fatal(err)
				}
				done := 0
				for _, m := range got.Submissions {
					if id := statusID(m); id > 2 {
						if id != 3 {
							b.Fatalf("judge0 submission ended with status %d", id)
						}
						done++
					}
				}
				if done == len(batch) {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
	}
	ojRound := func(k int) {
		ids := make([]string, k)
		for i := range ids {
			code, _, body := c.doURL("POST", root+"/api/v1/runs", map[string]any{"language": "python3", "source": src, "stdin": "1 2"},
				"Authorization", "Bearer "+c.user)
			if code != http.StatusAccepted {
				b.Fatalf("POST /api/v1/runs: %d %s", code, body)
			}
			ids[i] = object(b, body)["id"].(string)
		}
		for _, id := range ids {
			for {
				_, _, body := c.doURL("GET", root+"/api/v1/runs/"+id, nil, "Authorization", "Bearer "+c.user)
				m := object(b, body)
				if st := m["state"]; st == "finished" {
					break
				} else if st == "dead" || st == "canceled" {
					b.Fatalf("run %s %v", id, st)
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
	}
	judge0Round(2)
	ojRound(2)
	b.ResetTimer()
	var j0Dur, ojDur time.Duration
	for round := 0; round < runsBenchRounds; round++ {
		k := n / runsBenchRounds
		start := time.Now()
		judge0Round(k)
		j0Dur += time.Since(start)
		start = time.Now()
		ojRound(k)
		ojDur += time.Since(start)
	}
	b.StopTimer()
	j0Rate, ojRate := float64(n)/j0Dur.Seconds(), float64(n)/ojDur.Seconds()
	b.ReportMetric(j0Rate, "judge0_submissions/s")
	b.ReportMetric(ojRate, "oj_runs/s")
	fmt.Printf("\nPython A+B through the whole system over HTTP, 2 run slots, %d each\n", n)
	fmt.Printf("%-30s %10s\n", "", "per second")
	fmt.Printf("%-30s %10.1f\n", "Judge0 face (/judge0)", j0Rate)
	fmt.Printf("%-30s %10.1f\n", "oj runs API (/api/v1/runs)", ojRate)
	fmt.Printf("%-30s %10.2f\n", "ratio", j0Rate/ojRate)
}

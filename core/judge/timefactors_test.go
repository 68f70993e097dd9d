package judge

import (
	"testing"
	"time"

	"oj/core/job"
	"oj/core/judge/problem/problemtest"
)

// TestProblemTimeFactor: a problem's time_factors give its language more time than the
// limit (on top of the language's own factor); another language's factor changes
// nothing.
func TestProblemTimeFactor(t *testing.T) {
	const answer = "1 2\n"
	fr := &fakeRunner{script: map[string]fakeRun{"1\n": {res: Result{CPU: 1500 * time.Millisecond}, stdout: answer}}}
	j, store := fakeJudge(t, fr)
	for _, c := range []struct {
		name, yaml string
		want       job.Verdict
	}{
		{"no factor: 1.5 s over 1 s", oneSecond, job.VerdictTLE},
		{"the language's factor 2: within 2 s", oneSecond + "time_factors: {fake: 2}\n", job.VerdictAC},
		{"another language's factor", oneSecond + "time_factors: {fakec: 2}\n", job.VerdictTLE},
		{"a factor under 1", "title: T\ntime_limit_ms: 2000\ntime_factors: {fake: 0.5}\n", job.VerdictTLE},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := judgeFake(t, j, store, problemtest.Cases(map[string]string{"problem.yaml": c.yaml}, [2]string{"1\n", answer}))
			if out.Verdict != c.want {
				t.Fatalf("verdict %s, cases %+v; want %s", out.Verdict, out.Cases, c.want)
			}
		})
	}
}

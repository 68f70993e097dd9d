package judge

import (
	"math"

	"oj/core/job"
	"oj/core/judge/problem"
)

// score fills each case's subtask and score and decides the submission:
//   - without subtasks every case weighs 100/n and earns weight × its points;
//   - with subtasks a subtask earns its score × the smallest points fraction among its
//     cases (all AC → full score; any WA/TLE/… → nothing), cases show their share;
//   - the verdict is AC when every case is AC, else SE if any case is SE, else the
//     first case (by index) whose verdict is neither AC nor PC, else PC; skipped cases
//     (SK, after the first failure of a problem that stops there) earn nothing and
//     never decide the verdict: the failure that stopped the run does;
//   - time and memory are the maxima over the cases.
func score(spec problem.Spec, cases []caseOutcome) job.Outcome {
	out := job.Outcome{Cases: make([]job.CaseResult, len(cases))}
	if len(spec.Subtasks) == 0 {
		w := 100 / float64(len(cases))
		for i, c := range cases {
			c.res.Score = round(w * c.points)
			out.Score += w * c.points
			out.Cases[i] = c.res
		}
	} else {
		byIndex := map[int]int{}
		for i, c := range cases {
			byIndex[c.res.Index] = i
		}
		for si, st := range spec.Subtasks {
			frac := 1.0
			for _, ci := range st.Cases {
				frac = math.Min(frac, cases[byIndex[ci]].points)
			}
			share := st.Score / float64(len(st.Cases))
			for _, ci := range st.Cases {
				c := &cases[byIndex[ci]]
				c.res.Subtask = si + 1
				c.res.Score = round(share * c.points)
			}
			out.Score += st.Score * frac
		}
		for i, c := range cases {
			out.Cases[i] = c.res
		}
	}
	out.Score = round(out.Score)
	out.Verdict = job.VerdictAC
	var first job.Verdict
	partial := false
	for _, c := range out.Cases {
		out.TimeMS = max(out.TimeMS, c.TimeMS)
		out.MemoryKB = max(out.MemoryKB, c.MemoryKB)
		switch c.Verdict {
		case job.VerdictAC, job.VerdictSK:
		case job.VerdictPC:
			partial = true
		case job.VerdictSE:
			out.Verdict = job.VerdictSE
		default:
			if first == "" {
				first = c.Verdict
			}
		}
	}
	switch {
	case out.Verdict == job.VerdictSE:
	case first != "":
		out.Verdict = first
	case partial:
		out.Verdict = job.VerdictPC
	}
	return out
}

// round keeps six decimals. Past 1e15 a float64 has no millionths left to round (and
// x*1e6 could overflow): such an x, like NaN or ±Inf, is returned as it is, for the
// bound checks to refuse.
func round(x float64) float64 {
	if !(math.Abs(x) < 1e15) {
		return x
	}
	return math.Round(x*1e6) / 1e6
}

// bounded makes an outcome whose scores oj could not store or render (job.CheckOutcome)
// an SE with the reason, its scores zero: scoring never hands the store such a number.
func bounded(out job.Outcome) job.Outcome {
	err := job.CheckOutcome(out)
	if err == nil {
		return out
	}
	out.Verdict, out.Score, out.Reason = job.VerdictSE, 0, err.Error()
	for i := range out.Cases {
		if !job.ScoreOK(out.Cases[i].Score) {
			out.Cases[i].Score = 0
		}
	}
	return out
}

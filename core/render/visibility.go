package render

import (
	"context"
	"errors"
	"sync"

	"oj/core/job"
	"oj/core/store"
	"oj/core/wire"
)

// What a submission's owner sees of a case is decided by the problem version the
// submission was judged on (DESIGN.md, "HTTP API"): every case's verdict, time, memory
// and score; what the solution wrote and the case's message only for the sample cases,
// or for every case of a problem whose tests are public. A program can copy a hidden
// test's input to its output, its standard error or its exit code, so a hidden case's
// excerpts are withheld and its message is the verdict's fixed text. Admins see
// everything. The rule is applied when an answer is served, so excerpts stored before
// a problem named its samples follow it too; every answer that carries cases goes
// through a View.

// View is what one viewer may see of the cases of one submission.
type View struct {
	admin   bool
	public  bool // the problem's tests are public: every case is shown like a sample
	samples map[int]bool
	grading Grading
}

// NewView is the view of a viewer (an admin or not) on the cases of a version with vis.
func NewView(admin bool, vis Visibility) View {
	return View{admin: admin, public: vis.Public, samples: vis.Samples, grading: vis.Grading}
}

// Shown reports whether the viewer sees what the solution wrote on case index, and the
// case's own message.
func (v View) Shown(index int) bool { return v.admin || v.public || v.samples[index] }

// Case is c as the viewer may see it. The checker's own message may quote the expected
// output or the input: admins only. A hidden case's message is its verdict's fixed text.
// A pass/fail problem's cases score nothing: a case's share of a score no submission has.
func (v View) Case(c wire.Case) wire.Case {
	c.Sample = v.samples[c.Index]
	if v.grading.PassFail {
		c.Score = 0
	}
	if v.admin {
		return c
	}
	c.CheckerMessage = ""
	if !v.Shown(c.Index) {
		c.Message = hiddenMessage(job.Verdict(c.Verdict), c.Message)
	}
	return c
}

// hiddenMessage is a hidden case's message for its owner: the verdict's meaning and
// nothing the program, the input or the answer chose (no exit code, no signal, no token
// position). A skipped case's message names the case that stopped the run, whose
// verdict the owner sees anyway.
func hiddenMessage(v job.Verdict, msg string) string {
	switch v {
	case job.VerdictAC:
		return ""
	case job.VerdictWA:
		return "wrong answer"
	case job.VerdictPE:
		return "presentation error"
	case job.VerdictPC:
		return "partially correct"
	case job.VerdictTLE:
		return "time limit exceeded"
	case job.VerdictMLE:
		return "memory limit exceeded"
	case job.VerdictOLE:
		return "output limit exceeded"
	case job.VerdictRE:
		return "runtime error"
	case job.VerdictSE:
		return "system error"
	case job.VerdictSK:
		return msg
	}
	return ""
}

// HiddenExcerptsNote is CaseDetail.ExcerptsNote of a hidden case seen by its owner.
const HiddenExcerptsNote = "output not shown: this is a hidden test case, and a problem shows its owner the output of its sample cases only"

// Visibility is what a problem version says about its cases' visibility, and how it
// grades them.
type Visibility struct {
	Public  bool
	Samples map[int]bool
	Grading Grading
}

// VisibilityOf reads a version's meta: "samples" (case numbers) and "public_tests" (a
// version recorded before either existed has neither: every case is hidden), and its
// grading (GradingOf).
func VisibilityOf(meta map[string]any) Visibility {
	vis := Visibility{Samples: map[int]bool{}, Grading: GradingOf(meta)}
	vis.Public, _ = meta["public_tests"].(bool)
	raw, _ := meta["samples"].([]any)
	for _, x := range raw {
		if f, ok := x.(float64); ok {
			vis.Samples[int(f)] = true
		}
	}
	return vis
}

// Visibilities keeps each problem version's Visibility, read once per version: versions
// are immutable, so entries never go stale; the map is emptied when it reaches its
// bound. The zero value is ready to use.
type Visibilities struct {
	mu sync.Mutex
	m  map[versionKey]Visibility
}

type versionKey struct {
	problem string
	version int
}

const visibilitiesSize = 4096

// Get is the visibility of problem's version.
func (c *Visibilities) Get(ctx context.Context, db store.DB, problem string, version int) (Visibility, error) {
	k := versionKey{problem, version}
	c.mu.Lock()
	vis, ok := c.m[k]
	c.mu.Unlock()
	if ok {
		return vis, nil
	}
	pv, err := store.ProblemVersionAt(ctx, db, problem, version)
	switch {
	case errors.Is(err, store.ErrNotFound):
		// The version is gone (a removed problem): nothing is a sample, nothing public.
		return Visibility{}, nil
	case err != nil:
		return Visibility{}, err
	}
	vis = VisibilityOf(pv.Meta)
	c.mu.Lock()
	if c.m == nil || len(c.m) >= visibilitiesSize {
		c.m = make(map[versionKey]Visibility)
	}
	c.m[k] = vis
	c.mu.Unlock()
	return vis, nil
}

// View is what a viewer (an admin or not) may see of sub's cases.
func (c *Visibilities) View(ctx context.Context, db store.DB, admin bool, sub *store.Submission) (View, error) {
	vis, err := c.Get(ctx, db, sub.ProblemID, sub.ProblemVersion)
	if err != nil {
		return View{}, err
	}
	return NewView(admin, vis), nil
}

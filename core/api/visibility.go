package api

import (
	"context"
	"errors"
	"sync"

	"oj/core/api/wire"
	"oj/core/job"
	"oj/core/store"
)

// What a submission's owner sees of a case is decided by the problem version the
// submission was judged on (DESIGN.md, "HTTP API"): every case's verdict, time, memory
// and score; what the solution wrote and the case's message only for the sample cases,
// or for every case of a problem whose tests are public. A program can copy a hidden
// test's input to its output, its standard error or its exit code, so a hidden case's
// excerpts are withheld and its message is the verdict's fixed text. Admins see
// everything. The rule is applied when an answer is served, so excerpts stored before
// a problem named its samples follow it too; every answer that carries cases goes
// through caseView.

// caseView is what one viewer may see of the cases of one submission.
type caseView struct {
	admin   bool
	public  bool // the problem's tests are public: every case is shown like a sample
	samples map[int]bool
}

// shown reports whether the viewer sees what the solution wrote on case index, and the
// case's own message.
func (v caseView) shown(index int) bool { return v.admin || v.public || v.samples[index] }

// apply is c as the viewer may see it. The checker's own message may quote the expected
// output or the input: admins only. A hidden case's message is its verdict's fixed text.
func (v caseView) apply(c wire.Case) wire.Case {
	c.Sample = v.samples[c.Index]
	if v.admin {
		return c
	}
	c.CheckerMessage = ""
	if !v.shown(c.Index) {
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

// hiddenExcerptsNote is CaseDetail.ExcerptsNote of a hidden case seen by its owner.
const hiddenExcerptsNote = "output not shown: this is a hidden test case, and a problem shows its owner the output of its sample cases only"

// caseViewOf is what tok may see of sub's cases. The problem version's samples are read
// once per version (a version never changes) and kept in views.
func (s *Server) caseViewOf(ctx context.Context, tok *store.Token, sub *store.Submission) (caseView, error) {
	vis, err := s.views.get(ctx, s.d.DB, sub.ProblemID, sub.ProblemVersion)
	if err != nil {
		return caseView{}, err
	}
	return caseView{admin: tok != nil && tok.Role == roleAdmin, public: vis.public, samples: vis.samples}, nil
}

// versionVisibility is what a problem version says about its cases' visibility.
type versionVisibility struct {
	public  bool
	samples map[int]bool
}

// visibilityCache keeps versionVisibility by problem version. Versions are immutable,
// so entries never go stale; the map is emptied when it reaches its bound.
type visibilityCache struct {
	mu sync.Mutex
	m  map[versionKey]versionVisibility
}

type versionKey struct {
	problem string
	version int
}

const visibilityCacheSize = 4096

func (c *visibilityCache) get(ctx context.Context, db store.DB, problem string, version int) (versionVisibility, error) {
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
		return versionVisibility{}, nil
	case err != nil:
		return versionVisibility{}, err
	}
	vis = visibilityOf(pv.Meta)
	c.mu.Lock()
	if c.m == nil || len(c.m) >= visibilityCacheSize {
		c.m = make(map[versionKey]versionVisibility)
	}
	c.m[k] = vis
	c.mu.Unlock()
	return vis, nil
}

// visibilityOf reads a version's meta: "samples" (case numbers) and "public_tests". A
// version recorded before either existed has neither: every case is hidden.
func visibilityOf(meta map[string]any) versionVisibility {
	vis := versionVisibility{samples: map[int]bool{}}
	vis.public, _ = meta["public_tests"].(bool)
	raw, _ := meta["samples"].([]any)
	for _, x := range raw {
		if f, ok := x.(float64); ok {
			vis.samples[int(f)] = true
		}
	}
	return vis
}

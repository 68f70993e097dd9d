package problems

import (
	"fmt"
	"strings"

	"oj/core/wire"
)

// RenderGrading is how a problem scores (pass/fail, or out of what, and its group tree)
// and where its time limit comes from, for the detail pane.
func RenderGrading(p *wire.Problem) string {
	var b strings.Builder
	if d := p.TimeLimitDerivation; d != nil {
		fmt.Fprintf(&b, "time limit %d ms, %s", d.LimitMS, d.State)
		if d.ACToTimeLimit != nil && d.TimeLimitToTLE != nil && d.ResolutionMS != nil {
			fmt.Fprintf(&b, " (slowest accepted × %g, a multiple of %d ms; TLE-labeled ≥ limit × %g)",
				*d.ACToTimeLimit, *d.ResolutionMS, *d.TimeLimitToTLE)
		}
		switch d.State {
		case "derived":
			fmt.Fprintf(&b, "\n  derived by verification %d from %d ms (%s)", d.VerificationID, d.SlowestACMS, d.SlowestACSource)
			for _, f := range d.From {
				fmt.Fprintf(&b, "\n    %s  %s  %d ms", f.Source, f.Language, f.TimeMS)
			}
		default:
			b.WriteString("\n  closed to users until verified (v verifies it)")
		}
		b.WriteString("\n")
	}
	g := p.Grading
	if g.Mode == "pass_fail" {
		b.WriteString("scoring: pass/fail (no score)\n")
		return b.String()
	}
	max := "?"
	if g.MaxScore != nil {
		max = fmt.Sprint(*g.MaxScore)
	}
	fmt.Fprintf(&b, "scoring: %s, out of %s\n", g.Mode, max)
	var walk func(gs []wire.ProblemGroup, depth int)
	walk = func(gs []wire.ProblemGroup, depth int) {
		for _, grp := range gs {
			fmt.Fprintf(&b, "  %-30s %8g  %s\n", strings.Repeat("  ", depth)+grp.Path, grp.MaxScore, grp.Aggregate)
			walk(grp.Groups, depth+1)
		}
	}
	walk(g.Groups, 0)
	return b.String()
}

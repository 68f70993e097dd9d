package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"oj/core/api/client"
	"oj/core/wire"
)

// pushVerified is what "problem push --verify" prints with -o json: the version pushed
// (read again once a verification derived its limit), the verification started and,
// with --wait, its table.
type pushVerified struct {
	Problem      *wire.Problem       `json:"problem"`
	Verify       *wire.VerifyStarted `json:"verify"`
	Verification *wire.Verification  `json:"verification,omitempty"`
}

// verifyPushed verifies the version just pushed. Asking for it with --verify is the
// confirmation: a push is not confirmed either. With wait it follows the verification
// (its progress on stderr on a terminal, as "problem verify --wait" shows it) and exits
// 1 when it failed.
func (a *app) verifyPushed(ctx context.Context, c *client.Client, prob *wire.Problem, wait bool, timeout time.Duration) error {
	started, err := c.VerifyProblem(ctx, prob.ID, false)
	if err != nil {
		return fmt.Errorf("pushed %s as version %d, but its verification did not start: %w", prob.ID, prob.Version, err)
	}
	out := pushVerified{Problem: prob, Verify: started}
	if !wait {
		return a.print(out, func(p *printer) {
			printProblem(p, prob)
			p.printf("verification %d of %s v%d: %s queued, %d not runnable; follow it with ojctl problem verify %s --show\n",
				started.VerificationID, prob.ID, started.Version, plural(started.Submissions, "submission"), started.NotRun, prob.ID)
		})
	}
	if a.stderrTTY {
		fmt.Fprintf(a.stderr, "pushed %s as version %d; verifying %s\n", prob.ID, prob.Version, plural(started.Submissions, "labeled submission"))
	}
	v, err := waitVerification(ctx, c, prob.ID, started.VerificationID, timeout, a)
	if err != nil {
		return err
	}
	out.Verification = v
	if again, err := c.Problem(ctx, prob.ID); err == nil {
		out.Problem = again
	}
	if err := a.print(out, func(p *printer) {
		printProblem(p, out.Problem)
		p.heading("Verification")
		printVerification(p, v)
	}); err != nil {
		return err
	}
	if v.State != "passed" {
		return &exitError{code: exitFailure, kind: codeFailed, msg: fmt.Sprintf("verification %d failed: %s", v.ID, v.Summary)}
	}
	return nil
}

// printGrading prints how a problem scores and its group tree.
func printGrading(p *printer, pr *wire.Problem) {
	g := pr.Grading
	switch g.Mode {
	case "":
		return
	case "pass_fail":
		p.printf("Scoring: pass/fail (no score: the verdict is all)\n")
		return
	}
	max := "?"
	if g.MaxScore != nil {
		max = fmt.Sprint(*g.MaxScore)
	}
	p.printf("Scoring: %s, out of %s (%s)\n", g.Mode, max, g.Aggregate)
	if len(g.Groups) == 0 {
		return
	}
	var rows [][]string
	var walk func(gs []wire.ProblemGroup, depth int)
	walk = func(gs []wire.ProblemGroup, depth int) {
		for _, grp := range gs {
			how := grp.Aggregate
			if grp.OnReject == "break" {
				how += ", stops at first rejection"
			}
			if grp.Ignore {
				how += ", ignored"
			}
			rows = append(rows, []string{strings.Repeat("  ", depth) + grp.Path, fmt.Sprint(grp.MaxScore), how, intList(grp.Cases)})
			walk(grp.Groups, depth+1)
		}
	}
	walk(g.Groups, 0)
	p.table([]string{"GROUP", "MAX", "GRADING", "CASES"}, rows)
}

// printDerivation prints where a time limit comes from, when the package gives timing.
func printDerivation(p *printer, id string, d *wire.TimeLimitDerivation) {
	if d == nil {
		return
	}
	p.heading("Time limit derivation")
	mult := "unknown (recorded before the multipliers were kept)"
	if d.ACToTimeLimit != nil && d.TimeLimitToTLE != nil && d.ResolutionMS != nil {
		mult = fmt.Sprintf("limit ≥ slowest accepted × %g, a multiple of %s; TLE-labeled ≥ limit × %g",
			*d.ACToTimeLimit, ms(int64(*d.ResolutionMS)), *d.TimeLimitToTLE)
	}
	pairs := [][2]string{{"State", d.State}, {"Limit", ms(int64(d.LimitMS))}, {"Multipliers", mult}}
	if d.State == "derived" {
		pairs = append(pairs, [2]string{"Verification", fmt.Sprint(d.VerificationID)},
			[2]string{"Slowest accepted", fmt.Sprintf("%s (%s)", ms(int64(d.SlowestACMS)), d.SlowestACSource)})
	} else {
		pairs = append(pairs, [2]string{"Open to users", "no: ojctl problem verify " + id + " --wait derives the limit"})
	}
	p.fields(pairs)
	if len(d.From) > 0 {
		rows := make([][]string, 0, len(d.From))
		for _, f := range d.From {
			rows = append(rows, []string{f.Source, f.Language, ms(int64(f.TimeMS)), f.SubmissionID})
		}
		p.table([]string{"DERIVED FROM", "LANG", "SLOWEST CASE", "SUBMISSION"}, rows)
	}
}

// printGroups prints a submission's per-group results ("secret/group1  50/50  AC").
func printGroups(p *printer, gs []wire.GroupResult) {
	if len(gs) == 0 {
		return
	}
	p.heading("Groups")
	var rows [][]string
	var walk func(gs []wire.GroupResult, depth int)
	walk = func(gs []wire.GroupResult, depth int) {
		for _, g := range gs {
			first := "-"
			if g.FirstFailingCase != nil {
				first = itoa(*g.FirstFailingCase)
			}
			rows = append(rows, []string{strings.Repeat("  ", depth) + g.Path, fmt.Sprintf("%g/%g", g.Score, g.MaxScore), g.Verdict, first})
			walk(g.Groups, depth+1)
		}
	}
	walk(gs, 0)
	p.table([]string{"GROUP", "SCORE", "VERDICT", "FIRST FAILING"}, rows)
}

func intList(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = itoa(x)
	}
	return strings.Join(s, " ")
}

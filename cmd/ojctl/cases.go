package main

import (
	"context"
	"fmt"
	"strings"

	"oj/core/api/client"
	"oj/core/wire"
	"oj/tui/shared"
)

// wrapWidth is where long values (a dead submission's reason, a checker's message) wrap:
// they are shown whole, over as many lines as they need, never cut.
const wrapWidth = 100

// maxCaseOutputs bounds how many non-AC cases `status --cases` prints the output of; -o
// json has every case.
const maxCaseOutputs = 10

// printFieldsWrapped draws label: value pairs like printer.fields, wrapping each value at
// wrapWidth with its continuation lines under the first.
func printFieldsWrapped(p *printer, pairs [][2]string) {
	width := 0
	for _, kv := range pairs {
		width = max(width, len(kv[0]))
	}
	label := p.r.NewStyle().Bold(true).Width(width + 2)
	indent := strings.Repeat(" ", width+2)
	for _, kv := range pairs {
		lines := shared.Wrap(kv[1], max(wrapWidth-width-2, 20))
		style := p.tint(p.r.NewStyle(), kv[1])
		p.printf("%s%s\n", label.Render(kv[0]+":"), style.Render(lines[0]))
		for _, l := range lines[1:] {
			p.printf("%s%s\n", indent, style.Render(l))
		}
	}
}

// oneLine is text for one table cell: terminal-safe, line breaks shown as " ⏎ ".
func oneLine(s string) string {
	return strings.ReplaceAll(strings.TrimRight(shared.Safe(s), "\n"), "\n", " ⏎ ")
}

// caseDetails fetches GET /api/v1/submissions/{id}/cases/{n} for cases.
func caseDetails(ctx context.Context, c *client.Client, id string, cases []wire.Case) ([]wire.CaseDetail, error) {
	out := make([]wire.CaseDetail, 0, len(cases))
	for _, cs := range cases {
		d, err := c.Case(ctx, id, cs.Index)
		if err != nil {
			return nil, err
		}
		out = append(out, *d)
	}
	return out, nil
}

// failedCases are the cases whose output is worth reading: every one not AC, and not SK
// (skipped after an earlier failure: it never ran, so it wrote nothing).
func failedCases(s *wire.Submission) []wire.Case {
	var out []wire.Case
	for _, c := range s.Cases {
		if c.Verdict != "AC" && c.Verdict != "SK" {
			out = append(out, c)
		}
	}
	return out
}

// printCaseOutputs draws, for each case detail, its message, the checker's message (admin
// tokens get it), and what the solution wrote on stdout and stderr. more is the number of
// failed cases left out.
func printCaseOutputs(p *printer, details []wire.CaseDetail, more int) {
	for _, d := range details {
		sample := ""
		if d.Sample {
			sample = " (sample)"
		}
		p.heading(fmt.Sprintf("Case %d%s: %s, %s, %s", d.Index, sample, d.Verdict, ms(int64(d.TimeMS)), kb(d.MemoryKB)))
		var pairs [][2]string
		if d.Message != "" {
			pairs = append(pairs, [2]string{"Message", d.Message})
		}
		if d.CheckerMessage != "" {
			pairs = append(pairs, [2]string{"Checker", d.CheckerMessage})
		}
		if d.ExcerptsNote != "" {
			pairs = append(pairs, [2]string{"Output", d.ExcerptsNote})
		}
		if len(pairs) > 0 {
			printFieldsWrapped(p, pairs)
		}
		if d.ExcerptsNote != "" {
			continue
		}
		for _, ex := range []struct{ name, text string }{{"stdout", d.Stdout}, {"stderr", d.Stderr}} {
			if ex.text == "" {
				p.printf("%s %s\n", ex.name+":", p.r.NewStyle().Faint(true).Render("(empty)"))
				continue
			}
			p.printf("%s\n", ex.name+":")
			for _, l := range shared.Wrap(ex.text, max(wrapWidth-2, 20)) {
				p.printf("  %s\n", l)
			}
		}
	}
	if more > 0 {
		p.printf("\n%s\n", p.r.NewStyle().Faint(true).Render(fmt.Sprintf(
			"(%d more failed cases not shown: -o json --cases has the output of every case)", more)))
	}
}

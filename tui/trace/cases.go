package trace

import (
	"fmt"
	"strings"

	"oj/core/wire"
	"oj/tui/shared"
	"oj/tui/styles"
)

// maxOutputLines bounds each excerpt in the case view; the server bounds the excerpts
// in bytes (judge.excerpt_bytes), this bounds them in lines once wrapped.
const maxOutputLines = 200

// casesTable is the cases of a submission, one row each, the message wrapped under its
// column; the row of index sel is marked.
func casesTable(st styles.Styles, cases []wire.Case, width, sel int) string {
	var b strings.Builder
	b.WriteString(st.Label.Render(fmt.Sprintf("  %4s %3s  %-7s %7s %10s  %s", "#", "SUB", "VERDICT", "TIME", "MEMORY", "MESSAGE")))
	for _, c := range cases {
		mark := "  "
		if c.Index == sel {
			mark = st.Mark.Render("▶ ")
		}
		prefix := fmt.Sprintf("%s%4d %3d  %-7s %7s %10s  ", mark, c.Index, c.Subtask, c.Verdict, shared.MS(int64(c.TimeMS)), kb(c.MemoryKB))
		b.WriteString("\n" + hang(prefix, orDash(c.Message), width))
	}
	return b.String()
}

// CaseTitle is the detail pane's title of case n of submission id.
func CaseTitle(id string, n int) string { return fmt.Sprintf("case %d of %s", n, id) }

// RenderCase returns one case's result and output as lines fitting width columns.
func RenderCase(st styles.Styles, d *wire.CaseDetail, width int) string {
	var b strings.Builder
	line := func(label, value string) {
		b.WriteString(hang(st.Label.Render(fmt.Sprintf("%-10s", label))+" ", value, width) + "\n")
	}
	line("submission", fmt.Sprintf("%s   attempt %d", d.SubmissionID, d.Attempt))
	sample := ""
	if d.Sample {
		sample = " (sample)"
	}
	line("case", fmt.Sprintf("%d%s   subtask %d   verdict %s   time %s   memory %s   score %g", d.Index, sample, d.Subtask,
		d.Verdict, shared.MS(int64(d.TimeMS)), kb(d.MemoryKB), d.Score))
	line("message", orDash(d.Message))
	if d.CheckerMessage != "" {
		line("checker", d.CheckerMessage)
	}
	if d.ExcerptsNote != "" {
		line("output", d.ExcerptsNote)
	}
	for _, ex := range []struct{ name, text string }{{"stdout", d.Stdout}, {"stderr", d.Stderr}} {
		b.WriteString("\n" + st.Section.Render(ex.name) + "\n")
		if ex.text == "" {
			b.WriteString(st.Muted.Render("  (empty)") + "\n")
			continue
		}
		b.WriteString(block(ex.text, width, maxOutputLines, func(n int) string {
			return st.Muted.Render(fmt.Sprintf("… %d more lines", n))
		}) + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// groupsTable is a submission's groups graded from its cases, one row each, nested
// groups indented: "secret/group1  50/50  AC".
func groupsTable(st styles.Styles, gs []wire.GroupResult) string {
	var b strings.Builder
	b.WriteString(st.Label.Render(fmt.Sprintf("  %-30s %13s  %-7s  %s", "GROUP", "SCORE", "VERDICT", "FIRST FAILING")))
	var walk func(gs []wire.GroupResult, depth int)
	walk = func(gs []wire.GroupResult, depth int) {
		for _, g := range gs {
			first := "-"
			if g.FirstFailingCase != nil {
				first = fmt.Sprintf("case %d", *g.FirstFailingCase)
			}
			fmt.Fprintf(&b, "\n  %-30s %13s  %-7s  %s", strings.Repeat("  ", depth)+g.Path,
				fmt.Sprintf("%g/%g", g.Score, g.MaxScore), g.Verdict, first)
			walk(g.Groups, depth+1)
		}
	}
	walk(gs, 0)
	return b.String()
}

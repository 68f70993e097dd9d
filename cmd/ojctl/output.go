package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/lipgloss/table"
	"github.com/muesli/termenv"
)

// color reports whether tables get colour: only on a terminal, never with --no-color or
// NO_COLOR (https://no-color.org: any non-empty value).
func (a *app) color() bool {
	return a.stdoutTTY && !a.noColor && a.getenv("NO_COLOR") == ""
}

// print writes a command's answer, data, in the output format: with -o json one JSON
// document on one line (the wire types' field names, the stable form for scripts), with
// -o jsonl one object per line stamped with the time (see writeLines), else the table
// tableFn draws.
func (a *app) print(data any, tableFn func(p *printer)) error {
	switch {
	case a.jsonLines:
		a.printed = true
		return a.writeLines(data)
	case a.output == "json":
		a.printed = true
		return writeJSON(a.stdout, data)
	}
	p := a.printer(a.stdout)
	tableFn(p)
	return p.err
}

// writeJSON writes data as one line of JSON.
func writeJSON(w io.Writer, data any) error {
	return json.NewEncoder(w).Encode(data)
}

// listFields are the fields that make an answer a list for -o jsonl: the items of
// dlq ls, submissions and problem ls, the entries of pel and audit, the rows of outbox,
// languages and the contexts of config get-contexts. Other answers (overview, workers, a
// trace, a mutation's counts) are one result, one line.
var listFields = []string{"items", "entries", "rows", "languages", "contexts"}

// writeLines writes data for -o jsonl: a list answer as one line per item, any other as
// one line, each a JSON object whose first field "time" is when ojctl wrote it (RFC 3339),
// for logs that cron appends to. The rest of a list answer (a total, a next cursor) is
// left out: -o json has the whole answer.
func (a *app) writeLines(data any) error {
	b, err := json.Marshal(data)
	if err != nil {
		return err
	}
	items := []json.RawMessage{b}
	var obj map[string]json.RawMessage
	switch {
	case len(b) > 0 && b[0] == '[':
		items = nil
		if err := json.Unmarshal(b, &items); err != nil {
			return err
		}
	case json.Unmarshal(b, &obj) == nil:
		for _, f := range listFields {
			if raw, ok := obj[f]; ok && len(raw) > 0 && raw[0] == '[' {
				items = nil
				if err := json.Unmarshal(raw, &items); err != nil {
					return err
				}
				break
			}
		}
	}
	now := a.clock()
	var out bytes.Buffer
	for _, it := range items {
		out.Write(stampLine(now, it))
		out.WriteByte('\n')
	}
	_, err = a.stdout.Write(out.Bytes())
	return err
}

// stampLine puts "time" first in the object item; an item that is not an object, or has a
// "time" of its own, becomes {"time": …, "value": item}.
func stampLine(now time.Time, item json.RawMessage) []byte {
	ts, _ := json.Marshal(now.Format(time.RFC3339))
	var fields map[string]json.RawMessage
	if json.Unmarshal(item, &fields) != nil || fields == nil || fields["time"] != nil {
		return fmt.Appendf(nil, `{"time":%s,"value":%s}`, ts, item)
	}
	if len(fields) == 0 {
		return fmt.Appendf(nil, `{"time":%s}`, ts)
	}
	var compact bytes.Buffer
	_ = json.Compact(&compact, item)
	return fmt.Appendf(nil, `{"time":%s,%s`, ts, compact.Bytes()[1:])
}

// clock is the app's time, for -o jsonl's stamps.
func (a *app) clock() time.Time {
	if a.now != nil {
		return a.now()
	}
	return time.Now()
}

// printer draws lipgloss tables and short text blocks on one writer.
type printer struct {
	w     io.Writer
	r     *lipgloss.Renderer
	color bool
	err   error
	wrote bool
}

func (a *app) printer(w io.Writer) *printer {
	r := lipgloss.NewRenderer(w)
	color := a.color()
	if !color {
		r.SetColorProfile(termenv.Ascii)
	}
	return &printer{w: w, r: r, color: color}
}

func (p *printer) printf(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
		p.wrote = true
	}
}

// heading starts a section, separated from the previous one by a blank line.
func (p *printer) heading(title string) {
	if p.wrote {
		p.printf("\n")
	}
	p.printf("%s\n", p.r.NewStyle().Bold(true).Foreground(lipgloss.Color("12")).Render(title))
}

// table draws rows under headers: no outer border, a rule under the header, columns
// padded, so it reads like kubectl's and still greps line by line.
func (p *printer) table(headers []string, rows [][]string) {
	if len(rows) == 0 {
		p.printf("%s\n", p.r.NewStyle().Faint(true).Render("(none)"))
		return
	}
	header := p.r.NewStyle().Bold(true).PaddingRight(2)
	cell := p.r.NewStyle().PaddingRight(2)
	t := table.New().
		Border(lipgloss.NormalBorder()).
		BorderTop(false).BorderBottom(false).BorderLeft(false).BorderRight(false).
		BorderColumn(false).BorderRow(false).BorderHeader(true).
		BorderStyle(p.r.NewStyle().Faint(true)).
		Headers(headers...).
		Rows(rows...).
		StyleFunc(func(row, col int) lipgloss.Style {
			if row == table.HeaderRow {
				return header
			}
			return p.tint(cell, rows[row][col])
		})
	p.printf("%s\n", trimRight(t.Render()))
}

// fields draws label: value pairs, labels aligned.
func (p *printer) fields(pairs [][2]string) {
	width := 0
	for _, kv := range pairs {
		width = max(width, len(kv[0]))
	}
	label := p.r.NewStyle().Bold(true).Width(width + 2)
	for _, kv := range pairs {
		p.printf("%s%s\n", label.Render(kv[0]+":"), p.tint(p.r.NewStyle(), kv[1]).Render(kv[1]))
	}
}

// tint colours verdicts and states, the values an operator's eye looks for.
func (p *printer) tint(s lipgloss.Style, value string) lipgloss.Style {
	if !p.color {
		return s
	}
	switch value {
	case "AC", "finished", "ok":
		return s.Foreground(lipgloss.Color("10"))
	case "WA", "PE", "TLE", "MLE", "OLE", "RE", "CE", "PC":
		return s.Foreground(lipgloss.Color("11"))
	case "SE", "dead", "canceled", "failed":
		return s.Foreground(lipgloss.Color("9"))
	case "running", "queued":
		return s.Foreground(lipgloss.Color("14"))
	case "SK": // skipped after an earlier failure: not run, so nothing to look at
		return s.Faint(true)
	}
	return s
}

func trimRight(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// ms formats a duration given in milliseconds for people: 850ms, 12.3s, 4m5s.
func ms(v int64) string {
	d := time.Duration(v) * time.Millisecond
	switch {
	case d < time.Second:
		return d.String()
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	default:
		return d.Round(time.Second).String()
	}
}

// inactive formats a consumer's inactive_ms: "-" when Redis does not report it (before
// 7.2), "never" when the consumer never got an entry.
func inactive(v *int64) string {
	switch {
	case v == nil:
		return "-"
	case *v < 0:
		return "never"
	}
	return ms(*v)
}

// stamp formats a time in the local zone; the zero time is "-".
func stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format("2006-01-02 15:04:05")
}

func stampPtr(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return stamp(*t)
}

func ptrOr[T any](p *T, none string) string {
	if p == nil {
		return none
	}
	return fmt.Sprint(*p)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func itoa[T ~int | ~int64](v T) string { return fmt.Sprint(v) }

// compactJSON renders a small map for one table cell.
func compactJSON(v any) string {
	if v == nil {
		return ""
	}
	b, err := json.Marshal(v)
	if err != nil || string(b) == "{}" || string(b) == "null" {
		return ""
	}
	return string(b)
}

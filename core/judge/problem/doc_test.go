package problem

import (
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestDocumentedFormat keeps docs/problem-format.md honest: its table lists exactly the
// keys the schema knows, and its worked example's problem.yaml is accepted.
func TestDocumentedFormat(t *testing.T) {
	b, err := os.ReadFile("../../../docs/problem-format.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	tableKeys := func(from, to string) []string {
		_, sec, _ := strings.Cut(doc, from)
		sec, _, _ = strings.Cut(sec, to)
		var keys []string
		for _, m := range regexp.MustCompile("(?m)^\\| `([a-z_.\\[\\]]+)` \\|").FindAllStringSubmatch(sec, -1) {
			keys = append(keys, m[1])
		}
		return keys
	}
	var known []string
	// A scoring group's groups are groups again: each field's keys are listed once.
	seen := map[*field]bool{}
	var walk func(f *field, path string)
	walk = func(f *field, path string) {
		if seen[f] {
			return
		}
		seen[f] = true
		for i := range f.fields {
			p := join(path, f.fields[i].key)
			known = append(known, p)
			walk(&f.fields[i], p)
		}
		if f.elem != nil && f.elem.kind == kindMap {
			walk(f.elem, path+"[i]")
		}
	}
	walk(&schema, "")
	if got := tableKeys("## problem.yaml", "## Checkers"); !slices.Equal(got, known) {
		t.Fatalf("documented keys %v, schema keys %v", got, known)
	}
	var limits []string
	lt := reflect.TypeOf(Limits{})
	for i := 0; i < lt.NumField(); i++ {
		limits = append(limits, lt.Field(i).Tag.Get("mapstructure"))
	}
	if got := tableKeys("## Package limits", "## A complete example"); !slices.Equal(got, limits) {
		t.Fatalf("documented limits %v, config keys %v", got, limits)
	}
	_, example, ok := strings.Cut(doc, "## A complete example")
	if !ok {
		t.Fatal("no worked example")
	}
	m := regexp.MustCompile("(?s)`problem.yaml`:\n\n```yaml\n(.*?)```").FindStringSubmatch(example)
	if m == nil {
		t.Fatal("the worked example has no problem.yaml")
	}
	s, err := parseSpec([]byte(m[1]), 3, func(n string) bool { return n == "checker.cpp" })
	if err != nil || s.Checker.Type != CheckerTestlib || len(s.Subtasks) != 2 {
		t.Fatalf("worked example: %+v %v", s, err)
	}
}

package problem

import (
	"fmt"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"oj/core/spelling"
)

// problem.yaml is checked against this schema before it is decoded, so that a mistake
// is reported with its line, the key's full name (checker.epsilon, subtasks[1].score),
// what the key wants and, for a key that does not exist, the keys that do — never with
// the decoder's own vocabulary (Go type names).

// kind is the shape a problem.yaml value must have.
type kind int

const (
	kindString kind = iota
	kindInt
	kindNumber
	kindBool
	kindMap
	kindList
)

// field describes one key: its kind, how an error describes the value it wants, and
// for a mapping its keys, for a list its elements.
type field struct {
	key    string
	kind   kind
	want   string
	fields []field
	elem   *field
	// open, for a mapping whose keys are names of the package's choosing (language
	// ids), is what every value must be.
	open *field
}

// schema is problem.yaml. docs/problem-format.md documents the same keys.
var schema = field{kind: kindMap, want: "a mapping of keys (title: …, time_limit_ms: …)", fields: []field{
	{key: "title", kind: kindString, want: fmt.Sprintf("text of 1..%d characters", maxTitle)},
	{key: "time_limit_ms", kind: kindInt, want: fmt.Sprintf("a whole number of milliseconds, 1..%d", maxTimeLimitMS)},
	{key: "memory_limit_mb", kind: kindInt, want: fmt.Sprintf("a whole number of MiB, 1..%d", maxMemoryLimitMB)},
	{key: "output_limit_mb", kind: kindInt, want: fmt.Sprintf("a whole number of MiB, 1..%d", maxMemoryLimitMB)},
	{key: "checker", kind: kindMap, want: "a mapping such as {type: lines}", fields: []field{
		{key: "type", kind: kindString, want: "one of " + checkerTypes},
		{key: "epsilon", kind: kindNumber, want: "a number in (0, 1)"},
		{key: "source", kind: kindString, want: "a C or C++ file name such as checker.cpp"},
		{key: "case_sensitive", kind: kindBool, want: "true or false"},
		{key: "space_change_sensitive", kind: kindBool, want: "true or false"},
		{key: "absolute_tolerance", kind: kindNumber, want: "a number in [0, 1e9)"},
		{key: "relative_tolerance", kind: kindNumber, want: "a number in [0, 1e9)"},
		{key: "args", kind: kindList, want: "a list of arguments such as [float_tolerance, \"1e-6\"]",
			elem: &field{kind: kindString, want: "an argument (text)"}},
	}},
	{key: "interactor", kind: kindString, want: "a C or C++ file name such as interactor.cpp"},
	{key: "stop_on_first_failure", kind: kindBool, want: "true or false"},
	{key: "subtasks", kind: kindList, want: "a list of subtasks such as [{score: 30, cases: [1, 2]}]",
		elem: &field{kind: kindMap, want: "a mapping such as {score: 30, cases: [1, 2]}", fields: []field{
			{key: "score", kind: kindNumber, want: fmt.Sprintf("a number in (0, %d]", maxSubtaskScore)},
			{key: "cases", kind: kindList, want: "a list of case numbers such as [1, 2, 3]",
				elem: &field{kind: kindInt, want: "a case number (1, 2, …)"}},
		}}},
	{key: "samples", kind: kindList, want: "a list of case numbers such as [1, 2]",
		elem: &field{kind: kindInt, want: "a case number (1, 2, …)"}},
	{key: "public_tests", kind: kindBool, want: "true or false"},
	{key: "interactive", kind: kindBool, want: "true or false"},
	groupSchema,
	{key: "timing", kind: kindMap, want: "a mapping such as {derive: true, ac_to_time_limit: 2}", fields: []field{
		{key: "derive", kind: kindBool, want: "true or false"},
		{key: "ac_to_time_limit", kind: kindNumber, want: "a number in [1, 100]"},
		{key: "time_limit_to_tle", kind: kindNumber, want: "a number in [1, 100]"},
		{key: "resolution_ms", kind: kindInt, want: "a whole number of milliseconds, 1..60000"},
	}},
	{key: "submissions", kind: kindList, want: "a list such as [{source: submissions/accepted/a.cpp, language: cpp17, expect: [AC]}]",
		elem: &field{kind: kindMap, want: "a mapping such as {source: submissions/accepted/a.cpp, language: cpp17, expect: [AC]}", fields: []field{
			{key: "source", kind: kindString, want: "a file under submissions/"},
			{key: "language", kind: kindString, want: "a language id such as cpp17"},
			{key: "expect", kind: kindList, want: "a list of verdicts such as [AC]", elem: &field{kind: kindString, want: "a verdict: AC, WA, PE, PC, TLE, MLE, OLE, RE"}},
			{key: "label", kind: kindString, want: "text"},
			{key: "time_limit", kind: kindBool, want: "true or false"},
			{key: "note", kind: kindString, want: "text"},
		}}},
	{key: "languages", kind: kindList, want: "a list of language ids such as [cpp17, python3]",
		elem: &field{kind: kindString, want: "a language id such as cpp17"}},
	{key: "time_factors", kind: kindMap, want: "a mapping of language ids to factors such as {python3: 2}", open: &field{kind: kindNumber,
		want: fmt.Sprintf("a number in [%g, %g]", minTimeFactor, maxTimeFactor)}},
}}

// groupSchema is a scoring group; its groups are groups again (tied in init).
var groupSchema = field{key: "scoring", kind: kindMap, want: "a mapping such as {aggregate: sum, groups: [...]}", fields: []field{
	{key: "name", kind: kindString, want: "text"},
	{key: "cases", kind: kindList, want: "a list of case numbers such as [1, 2, 3]", elem: &field{kind: kindInt, want: "a case number (1, 2, …)"}},
	{key: "groups", kind: kindList, want: "a list of groups"},
	{key: "aggregate", kind: kindString, want: "one of " + aggregates},
	{key: "verdict", kind: kindString, want: "one of " + verdictModes},
	{key: "accept_if_any_accepted", kind: kindBool, want: "true or false"},
	{key: "ignore", kind: kindBool, want: "true or false"},
	{key: "on_reject", kind: kindString, want: "break or continue"},
	{key: "accept_score", kind: kindNumber, want: "a number"},
	{key: "reject_score", kind: kindNumber, want: "a number"},
	{key: "range", kind: kindList, want: "two numbers such as [0, 100]", elem: &field{kind: kindNumber, want: "a number"}},
}}

func init() {
	// A group's groups are groups: the scoring field refers to itself there, so nested
	// groups are checked all the way down (as deep as the YAML goes; checkScoring bounds it).
	for i := range schema.fields {
		if schema.fields[i].key != "scoring" {
			continue
		}
		sc := &schema.fields[i]
		for j := range sc.fields {
			if sc.fields[j].key == "groups" {
				sc.fields[j].elem = sc
			}
		}
	}
}

// checkerTypes lists the checker types as errors and the schema name them.
const checkerTypes = "lines, exact, tokens, float, testlib, kattis"

// lineMap records where each key's value sits in problem.yaml, by its full name.
type lineMap map[string]int

// at returns the line of key, or of its nearest enclosing key present, or 1.
func (m lineMap) at(key string) int {
	for key != "" {
		if l, ok := m[key]; ok {
			return l
		}
		i := strings.LastIndexAny(key, ".[")
		if i < 0 {
			break
		}
		key = key[:i]
	}
	return 1
}

// specError is a problem.yaml mistake at a line.
func specError(reason error, line int, format string, args ...any) error {
	return &InvalidError{Reason: reason, Name: "problem.yaml", Line: max(line, 1), Detail: fmt.Sprintf(format, args...)}
}

// checkSchema walks n (a value of key, full name path) against f, recording lines.
func checkSchema(n *yaml.Node, f *field, path string, lines lineMap) error {
	if n.Kind == yaml.AliasNode {
		return specError(ErrBadYAML, n.Line, "%s: aliases (*%s) are not supported: write the value out", name(path), n.Value)
	}
	lines[path] = n.Line
	if f.kind != kindMap && f.kind != kindList && n.Kind == yaml.ScalarNode {
		if checkScalar(n, f.kind) {
			return nil
		}
		return wrongType(n, f, path)
	}
	switch {
	case f.kind == kindMap && n.Kind == yaml.MappingNode:
		seen := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode {
				return specError(ErrBadYAML, k.Line, "%s: a key must be a plain name", name(path))
			}
			sub := lookup(f.fields, k.Value)
			if f.open != nil {
				sub = f.open
			}
			full := join(path, k.Value)
			if sub == nil {
				return unknownKey(k, f, path)
			}
			if first, dup := seen[k.Value]; dup {
				return specError(ErrBadYAML, k.Line, "%s appears twice (first on line %d)", full, first)
			}
			seen[k.Value] = k.Line
			if v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null" {
				lines[full] = v.Line
				continue // an empty value is the default
			}
			if err := checkSchema(v, sub, full, lines); err != nil {
				return err
			}
		}
		return nil
	case f.kind == kindList && n.Kind == yaml.SequenceNode:
		for i, v := range n.Content {
			if err := checkSchema(v, f.elem, fmt.Sprintf("%s[%d]", path, i), lines); err != nil {
				return err
			}
		}
		return nil
	}
	return wrongType(n, f, path)
}

// checkScalar reports whether a scalar has the kind wanted. Only YAML's own integers
// are integers (1.5 would otherwise be cut to 1), only true and false are booleans.
func checkScalar(n *yaml.Node, k kind) bool {
	tag := n.ShortTag()
	switch k {
	case kindString:
		return tag != "!!null"
	case kindInt:
		var v int64
		return tag == "!!int" && n.Decode(&v) == nil && v >= -1<<31 && v < 1<<31
	case kindNumber:
		var v float64
		return (tag == "!!int" || tag == "!!float") && n.Decode(&v) == nil
	case kindBool:
		return tag == "!!bool"
	}
	return false
}

func wrongType(n *yaml.Node, f *field, path string) error {
	return specError(ErrBadYAML, n.Line, "%s: want %s, got %s", name(path), f.want, describe(n))
}

// describe names what a node holds, for an error.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	if n.ShortTag() == "!!null" {
		return "nothing"
	}
	return strconv.Quote(clip(n.Value, 40))
}

func unknownKey(k *yaml.Node, f *field, path string) error {
	valid := make([]string, len(f.fields))
	for i, s := range f.fields {
		valid[i] = s.key
	}
	return specError(ErrBadYAML, k.Line, "unknown key %q (%s)", join(path, clip(k.Value, 40)), spelling.KeyHint(path, k.Value, valid))
}

func lookup(fields []field, key string) *field {
	for i := range fields {
		if fields[i].key == key {
			return &fields[i]
		}
	}
	return nil
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// name is how an error names a path: the document itself has none.
func name(path string) string {
	if path == "" {
		return "the top level"
	}
	return path
}

func clip(s string, n int) string {
	if len(s) > n {
		return strings.ToValidUTF8(s[:n], "") + "…"
	}
	return s
}

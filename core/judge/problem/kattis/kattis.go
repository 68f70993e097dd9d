// Package kattis reads a Kattis / ICPC problem package (the legacy format, the
// 2023-07 draft and 2025-09) and converts it into oj's own package: tests numbered in
// the format's order (data/sample, then data/secret and its groups, each folder's
// items in lexicographic order), the default validator's flags or the custom output
// validator as a kattis checker, interactive validators, scoring groups, the time and
// memory limits, the labeled submissions and the statements (public: the statements
// and what they reference; private: solution slides and the rest). A legacy package is
// named by its statements, as problemtools names it. What oj cannot honour —
// multi-pass and submit-answer problems, custom graders, include/ directories, static
// validators, group dependencies, per-group validator flags, several validators, a
// custom validation with none — is refused naming the file and the feature; what oj
// keeps without using (input validators, generators, scripts in data/) is said in the
// import notes.
package kattis

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"oj/core/judge/problem"
)

// Format versions.
const (
	Legacy = "legacy"
	Draft  = "2023-07-draft"
	V2025  = "2025-09"
)

// provisionalTimeMS is the time limit of a version whose limit is derived from its
// accepted submissions, until a verify derives it: generous, so that what verify
// measures is the submissions' time, not the limit.
const provisionalTimeMS = 10000

// defaultMemoryMB is the memory limit of a package that gives none (Kattis leaves it to
// the system; its typical default is 2048 MiB).
const defaultMemoryMB = 1024

// refuse is a 400 naming the file and the feature.
func refuse(name, format string, args ...any) error {
	return &problem.InvalidError{Reason: problem.ErrUnsupported, Name: name, Detail: fmt.Sprintf(format, args...)}
}

func bad(name, format string, args ...any) error {
	return &problem.InvalidError{Reason: problem.ErrBadYAML, Name: name, Detail: fmt.Sprintf(format, args...)}
}

// converter holds one conversion's state.
type converter struct {
	src     *problem.Source
	id      string
	b       *problem.Builder
	im      problem.Import
	version string
	meta    map[string]any
	spec    problem.Spec
	types   []string // pass-fail, scoring, interactive, …
	cases   int
	flags   []string // the validator's arguments (validator_flags / output_validator_args)
	samples []int
}

// Is reports whether src looks like a Kattis package: a problem.yaml with a data/ folder
// or without oj's title key.
func Is(src *problem.Source) bool {
	if !src.Has("problem.yaml") {
		return false
	}
	if src.IsDir("data") {
		return true
	}
	b, err := src.ReadFile("problem.yaml", 1<<20)
	if err != nil {
		return false
	}
	var m map[string]any
	if yaml.Unmarshal(b, &m) != nil {
		return false
	}
	_, hasTitle := m["title"]
	_, hasName := m["name"]
	return hasName && !hasTitle
}

// Convert converts a Kattis package. id is the problem's id, the name of last resort
// for a package that names itself nowhere (see name); "" for none.
func Convert(src *problem.Source, id string) (*problem.Converted, error) {
	c := &converter{src: src, id: id, b: problem.NewBuilder(src.Limits()), im: problem.Import{Format: "kattis"}}
	steps := []func() error{c.readYAML, c.name, c.limits, c.tests, c.validator, c.submissions, c.statements, c.rest}
	for _, step := range steps {
		if err := step(); err != nil {
			return nil, err
		}
	}
	if err := c.b.AddYAML("problem.yaml", c.spec); err != nil {
		return nil, err
	}
	zip, err := c.b.Bytes()
	if err != nil {
		return nil, err
	}
	return &problem.Converted{Zip: zip, Import: c.im}, nil
}

// known are the problem.yaml keys of each version.
var known = map[string][]string{
	Legacy: {"name", "type", "author", "source", "source_url", "license", "rights_owner", "limits", "validation",
		"validator_flags", "scoring", "keywords", "grading", "problem_format_version", "uuid", "languages"},
	Draft: {"problem_format_version", "type", "name", "uuid", "version", "credits", "source", "license", "rights_owner",
		"embargo_until", "limits", "keywords", "languages", "allow_file_writing", "constants", "validator_flags"},
	V2025: {"problem_format_version", "type", "name", "uuid", "version", "credits", "source", "license", "rights_owner",
		"embargo_until", "limits", "keywords", "languages", "allow_file_writing", "constants"},
}

func (c *converter) readYAML() error {
	b, err := c.src.ReadFile("problem.yaml", 1<<20)
	if err != nil {
		return err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return bad("problem.yaml", "not valid YAML: %s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if hasAlias(&doc) {
		return bad("problem.yaml", "aliases (*x) are not supported: write the value out")
	}
	empty := doc.Kind == 0 || len(doc.Content) == 0 || doc.Content[0].ShortTag() == "!!null"
	switch {
	case empty:
		// An empty problem.yaml (or one of comments only) is a legacy package with
		// every default, as problemtools reads it.
		c.meta = map[string]any{}
	case doc.Decode(&c.meta) != nil || c.meta == nil:
		return bad("problem.yaml", "want a mapping of keys (name: …)")
	}
	switch v := str(c.meta["problem_format_version"]); v {
	case "", "legacy", "legacy-icpc":
		c.version = Legacy
	case "2023-07-draft", "2023-07", "draft":
		c.version = Draft
	case "2025-09", "2025-09-draft":
		c.version = V2025
	default:
		return refuse("problem.yaml", "problem_format_version %q: oj reads legacy, 2023-07-draft and 2025-09", v)
	}
	c.im.Version = c.version
	for k := range c.meta {
		if !slices.Contains(known[c.version], k) {
			return bad("problem.yaml", "unknown key %q for the %s format (known: %s)", k, c.version, strings.Join(known[c.version], ", "))
		}
	}
	switch c.meta["name"].(type) {
	case nil, string, map[string]any:
	default:
		return bad("problem.yaml", "name: want a string or a map of languages to names")
	}
	// Type.
	switch t := c.meta["type"].(type) {
	case nil:
		c.types = []string{"pass-fail"}
	case string:
		c.types = strings.Fields(t)
	case []any:
		for _, x := range t {
			c.types = append(c.types, str(x))
		}
	default:
		return bad("problem.yaml", "type: want a string or a list")
	}
	if c.version == Legacy {
		switch v := strings.Fields(str(c.meta["validation"])); {
		case len(v) == 0 || v[0] == "default":
			if len(v) > 1 {
				return bad("problem.yaml", "validation: %q: the default validation takes no options", str(c.meta["validation"]))
			}
		case v[0] == "custom":
			c.types = append(c.types, "custom")
			for _, o := range v[1:] {
				switch o {
				case "interactive", "score":
					c.types = append(c.types, o)
				case "multi-pass":
					c.types = append(c.types, o)
				default:
					return bad("problem.yaml", "validation: unknown option %q", o)
				}
			}
		default:
			return bad("problem.yaml", "validation: %q: want default or custom", v[0])
		}
	}
	for _, t := range c.types {
		switch t {
		case "pass-fail", "scoring", "interactive", "custom", "score":
		case "multi-pass":
			return refuse("problem.yaml", "multi-pass problems (the validator writes the next pass's input): oj runs a submission once per test case")
		case "submit-answer":
			return refuse("problem.yaml", "submit-answer problems: oj judges programs, not answers")
		default:
			return bad("problem.yaml", "type: unknown %q", t)
		}
	}
	if c.has("scoring") && c.has("pass-fail") && c.version != Legacy {
		return bad("problem.yaml", "type: pass-fail and scoring exclude each other")
	}
	if c.has("interactive") {
		c.spec.Interactive = true
		c.im.Map("interactive", "interactive: true (the validator is the interactor)")
	}
	if err := c.languages(); err != nil {
		return err
	}
	if k, ok := c.meta["constants"].(map[string]any); ok && len(k) > 0 {
		return refuse("problem.yaml", "constants: oj does not substitute {{constants}} in validators, submissions or statements")
	}
	if sc, ok := c.meta["scoring"].(map[string]any); ok {
		if obj := str(sc["objective"]); obj != "" && obj != "max" {
			return refuse("problem.yaml", "scoring.objective %q: oj scores higher as better", obj)
		}
	}
	if g := c.meta["grading"]; g != nil {
		if m, ok := g.(map[string]any); ok {
			if obj := str(m["objective"]); obj != "" && obj != "max" {
				return refuse("problem.yaml", "grading.objective %q: oj scores higher as better", obj)
			}
		}
	}
	if v := str(c.meta["validator_flags"]); v != "" {
		c.flags = strings.Fields(v)
	}
	return nil
}

func (c *converter) has(t string) bool { return slices.Contains(c.types, t) }

func hasAlias(n *yaml.Node) bool {
	if n.Kind == yaml.AliasNode {
		return true
	}
	for _, k := range n.Content {
		if hasAlias(k) {
			return true
		}
	}
	return false
}

func str(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return ""
	case int:
		return strconv.Itoa(x)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	}
	return fmt.Sprint(v)
}

func num(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case float64:
		return x, true
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		return f, err == nil
	}
	return 0, false
}

// limits maps limits: and .timelimit.
func (c *converter) limits() error {
	lim, _ := c.meta["limits"].(map[string]any)
	if c.meta["limits"] != nil && lim == nil {
		return bad("problem.yaml", "limits: want a mapping")
	}
	t := &problem.Timing{ResolutionMS: 1000}
	if c.version == Legacy {
		t.ACToTimeLimit, t.TimeLimitToTLE = 5, 2
		if v, ok := num(lim["time_multiplier"]); ok {
			t.ACToTimeLimit = v
		}
		if v, ok := num(lim["time_safety_margin"]); ok {
			t.TimeLimitToTLE = v
		}
	} else {
		t.ACToTimeLimit, t.TimeLimitToTLE = 2, 1.5
		if m, ok := lim["time_multipliers"].(map[string]any); ok {
			if v, ok := num(m["ac_to_time_limit"]); ok {
				t.ACToTimeLimit = v
			}
			if v, ok := num(m["time_limit_to_tle"]); ok {
				t.TimeLimitToTLE = v
			}
		}
		if v, ok := num(lim["time_resolution"]); ok && v > 0 {
			t.ResolutionMS = max(1, int(math.Round(v*1000)))
		}
	}
	for _, v := range []float64{t.ACToTimeLimit, t.TimeLimitToTLE} {
		if v < 1 || v > 100 {
			return bad("problem.yaml", "limits: time multipliers must be within 1..100, got %v", v)
		}
	}
	c.spec.Timing = t
	c.im.Map("limits time multipliers", fmt.Sprintf("timing: ac_to_time_limit %g, time_limit_to_tle %g, resolution %d ms", t.ACToTimeLimit, t.TimeLimitToTLE, t.ResolutionMS))
	switch {
	case lim["time_limit"] != nil:
		v, ok := num(lim["time_limit"])
		if !ok || v <= 0 || v > 60 {
			return bad("problem.yaml", "limits.time_limit: want seconds in (0, 60], got %v", lim["time_limit"])
		}
		c.spec.TimeLimitMS = int(math.Ceil(v * 1000))
		c.im.Map("limits.time_limit", fmt.Sprintf("time_limit_ms: %d", c.spec.TimeLimitMS))
	case c.src.Has(".timelimit"):
		b, err := c.src.ReadFile(".timelimit", 64)
		if err != nil {
			return err
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
		if err != nil || v <= 0 || v > 60 {
			return bad(".timelimit", "want seconds in (0, 60], got %q", strings.TrimSpace(string(b)))
		}
		c.spec.TimeLimitMS = int(math.Ceil(v * 1000))
		c.im.Map(".timelimit", fmt.Sprintf("time_limit_ms: %d", c.spec.TimeLimitMS))
	default:
		t.Derive = true
		c.spec.TimeLimitMS = provisionalTimeMS
		c.im.Map("no time limit", fmt.Sprintf("timing.derive: the limit is derived from the accepted submissions at verify (slowest × %g, a multiple of %d ms); provisional %d ms until then", t.ACToTimeLimit, t.ResolutionMS, provisionalTimeMS))
	}
	c.spec.MemoryLimitMB = defaultMemoryMB
	if v, ok := num(lim["memory"]); ok {
		if v < 1 || v > 4096 || v != math.Trunc(v) {
			return refuse("problem.yaml", "limits.memory %v MiB: oj allows 1..4096", v)
		}
		c.spec.MemoryLimitMB = int(v)
		c.im.Map("limits.memory", fmt.Sprintf("memory_limit_mb: %d", c.spec.MemoryLimitMB))
	} else {
		c.im.Note("limits.memory not given: %d MiB (Kattis leaves it to the judge)", defaultMemoryMB)
	}
	if v, ok := num(lim["output"]); ok {
		if v < 1 || v > 4096 || v != math.Trunc(v) {
			return refuse("problem.yaml", "limits.output %v MiB: oj allows 1..4096", v)
		}
		c.spec.OutputLimitMB = int(v)
		c.im.Map("limits.output", fmt.Sprintf("output_limit_mb: %d", c.spec.OutputLimitMB))
	}
	for _, k := range []string{"code", "compilation_time", "compilation_memory", "validation_time", "validation_memory", "validation_output"} {
		if lim[k] != nil {
			c.im.Note("limits.%s: the judge's own bounds apply (judge.compile, judge.checker, api.limits.max_source_bytes)", k)
		}
	}
	if lim["validation_passes"] != nil {
		return refuse("problem.yaml", "limits.validation_passes: multi-pass problems are not supported")
	}
	return nil
}

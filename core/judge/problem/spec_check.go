package problem

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"oj/core/job"
)

// Bounds a problem.yaml must respect.
const (
	maxTimeLimitMS   = 60_000
	maxMemoryLimitMB = 4096
	defaultTimeMS    = 1000
	defaultMemoryMB  = 256
	maxTitle         = 200
	maxSubtaskScore  = 1_000_000
)

// parseSpec decodes problem.yaml and checks it against the package's files: cases is
// the number of tests, has reports whether a file exists. Every mistake is an
// *InvalidError with the line it is on.
func parseSpec(b []byte, cases int, has func(string) bool) (Spec, error) {
	var s Spec
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return s, syntaxError(err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 || doc.Content[0].ShortTag() == "!!null" {
		return s, specError(ErrBadYAML, 1, "the file is empty; it needs at least a title (title: A+B)")
	}
	lines := lineMap{}
	if err := checkSchema(doc.Content[0], &schema, "", lines); err != nil {
		return s, err
	}
	if err := doc.Content[0].Decode(&s); err != nil {
		// The schema admits only values that decode; this is a gap in it.
		return s, specError(ErrBadYAML, 1, "cannot be read: %s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if s.Title == "" || len(s.Title) > maxTitle {
		return s, specError(ErrBadYAML, lines.at("title"), "title: required, 1..%d characters (title: A+B)", maxTitle)
	}
	if s.TimeLimitMS == 0 {
		s.TimeLimitMS = defaultTimeMS
	}
	if s.MemoryLimitMB == 0 {
		s.MemoryLimitMB = defaultMemoryMB
	}
	if s.TimeLimitMS < 1 || s.TimeLimitMS > maxTimeLimitMS {
		return s, specError(ErrBadLimits, lines.at("time_limit_ms"), "time_limit_ms: %d is out of range 1..%d", s.TimeLimitMS, maxTimeLimitMS)
	}
	if s.MemoryLimitMB < 1 || s.MemoryLimitMB > maxMemoryLimitMB {
		return s, specError(ErrBadLimits, lines.at("memory_limit_mb"), "memory_limit_mb: %d is out of range 1..%d", s.MemoryLimitMB, maxMemoryLimitMB)
	}
	if s.OutputLimitMB < 0 || s.OutputLimitMB > maxMemoryLimitMB {
		return s, specError(ErrBadLimits, lines.at("output_limit_mb"), "output_limit_mb: %d is out of range 1..%d", s.OutputLimitMB, maxMemoryLimitMB)
	}
	if err := s.checkChecker(has, lines); err != nil {
		return s, err
	}
	if s.Interactor != "" {
		if err := checkSource(s.Interactor, has, false); err != nil {
			return s, specError(ErrBadInteractor, lines.at("interactor"), "interactor: %v", err)
		}
		if c := s.Checker.Type; c == CheckerKattis {
			return s, specError(ErrBadInteractor, lines.at("interactor"), "interactor: a kattis checker is its own interactor: drop interactor and say interactive: true")
		}
	}
	if s.Interactive && s.Checker.Type != CheckerKattis {
		return s, specError(ErrBadInteractor, lines.at("interactive"), "interactive: true needs a kattis checker, which is the interactor (a testlib interactor is given with interactor: FILE)")
	}
	if err := s.checkSamples(cases, lines); err != nil {
		return s, err
	}
	if err := s.checkSubtasks(cases, lines); err != nil {
		return s, err
	}
	if err := s.checkScoring(cases, lines); err != nil {
		return s, err
	}
	if err := s.checkTiming(lines); err != nil {
		return s, err
	}
	if err := s.checkLanguages(lines); err != nil {
		return s, err
	}
	return s, s.checkSubmissions(has, lines)
}

// checkSamples accepts existing case numbers, each once.
func (s *Spec) checkSamples(cases int, lines lineMap) error {
	seen := map[int]bool{}
	for i, c := range s.Samples {
		at := lines.at(fmt.Sprintf("samples[%d]", i))
		if c < 1 || c > cases {
			return specError(ErrBadSamples, at, "samples: case %d does not exist (the tests are 1..%d)", c, cases)
		}
		if seen[c] {
			return specError(ErrBadSamples, at, "samples: case %d is listed twice", c)
		}
		seen[c] = true
	}
	return nil
}

// syntaxError turns the YAML parser's error ("yaml: line 3: did not find expected key")
// into one that names the file and the line.
func syntaxError(err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 1
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if num, after, ok := strings.Cut(rest, ": "); ok {
			if n, err := strconv.Atoi(num); err == nil {
				line, msg = n, after
			}
		}
	}
	return specError(ErrBadYAML, line, "not valid YAML: %s", msg)
}

func (s *Spec) checkSubtasks(cases int, lines lineMap) error {
	if len(s.Subtasks) == 0 {
		return nil
	}
	owner := make([]int, cases+1)
	for i, st := range s.Subtasks {
		key := fmt.Sprintf("subtasks[%d]", i)
		if !(st.Score > 0) || st.Score > maxSubtaskScore {
			return specError(ErrBadSubtasks, lines.at(key+".score"), "%s.score: %v is out of range: want a number in (0, %d]", key, st.Score, maxSubtaskScore)
		}
		if len(st.Cases) == 0 {
			return specError(ErrBadSubtasks, lines.at(key), "%s.cases: required, a list of case numbers such as [1, 2]", key)
		}
		for j, c := range st.Cases {
			at := lines.at(fmt.Sprintf("%s.cases[%d]", key, j))
			if c < 1 || c > cases {
				return specError(ErrBadSubtasks, at, "%s.cases: case %d does not exist (the tests are 1..%d)", key, c, cases)
			}
			if owner[c] != 0 {
				return specError(ErrBadSubtasks, at, "%s.cases: case %d is already in subtasks[%d]; a case belongs to one subtask", key, c, owner[c]-1)
			}
			owner[c] = i + 1
		}
	}
	total := 0.0
	for _, st := range s.Subtasks {
		total += st.Score
	}
	if total > job.MaxScore {
		return specError(ErrBadSubtasks, lines.at("subtasks"), "subtasks: their scores add up to %v, past oj's bound of %g on any score", total, job.MaxScore)
	}
	for c := 1; c <= cases; c++ {
		if owner[c] == 0 {
			return specError(ErrBadSubtasks, lines.at("subtasks"), "subtasks: case %d belongs to no subtask; every case must be in one", c)
		}
	}
	return nil
}

// checkTiming fills in the Kattis defaults and checks the ranges.
func (s *Spec) checkTiming(lines lineMap) error {
	t := s.Timing
	if t == nil {
		return nil
	}
	if t.ACToTimeLimit == 0 {
		t.ACToTimeLimit = 2
	}
	if t.TimeLimitToTLE == 0 {
		t.TimeLimitToTLE = 1.5
	}
	if t.ResolutionMS == 0 {
		t.ResolutionMS = 1000
	}
	for key, v := range map[string]float64{"ac_to_time_limit": t.ACToTimeLimit, "time_limit_to_tle": t.TimeLimitToTLE} {
		if !(v >= 1 && v <= 100) {
			return specError(ErrBadLimits, lines.at("timing."+key), "timing.%s: %v is out of range 1..100", key, v)
		}
	}
	if t.ResolutionMS < 1 || t.ResolutionMS > maxTimeLimitMS {
		return specError(ErrBadLimits, lines.at("timing.resolution_ms"), "timing.resolution_ms: %d is out of range 1..%d", t.ResolutionMS, maxTimeLimitMS)
	}
	return nil
}

// Expectable verdicts of a labeled submission.
var expectable = []string{"AC", "WA", "PE", "PC", "TLE", "MLE", "OLE", "RE", "CE"}

// maxSubmissions bounds a package's labeled submissions.
const maxSubmissions = 200

// checkSubmissions checks the labeled submissions: sources under submissions/ that
// exist, known verdicts, each source once.
func (s *Spec) checkSubmissions(has func(string) bool, lines lineMap) error {
	if len(s.Submissions) > maxSubmissions {
		return specError(ErrBadSubmissions, lines.at("submissions"), "submissions: %d, at most %d", len(s.Submissions), maxSubmissions)
	}
	seen := map[string]bool{}
	for i := range s.Submissions {
		sub := &s.Submissions[i]
		key := fmt.Sprintf("submissions[%d]", i)
		if !strings.HasPrefix(sub.Source, "submissions/") || path.Clean(sub.Source) != sub.Source || !has(sub.Source) {
			return specError(ErrBadSubmissions, lines.at(key+".source"), "%s.source: %q: want a file of the package under submissions/", key, clip(sub.Source, 100))
		}
		if seen[sub.Source] {
			return specError(ErrBadSubmissions, lines.at(key+".source"), "%s.source: %q is listed twice", key, clip(sub.Source, 100))
		}
		seen[sub.Source] = true
		if len(sub.Expect) == 0 {
			return specError(ErrBadSubmissions, lines.at(key+".expect"), "%s.expect: required, the verdicts it may get, such as [AC]", key)
		}
		for j, v := range sub.Expect {
			if !slices.Contains(expectable, v) {
				return specError(ErrBadSubmissions, lines.at(fmt.Sprintf("%s.expect[%d]", key, j)), "%s.expect: %q is not one of %s", key, clip(v, 20), strings.Join(expectable, ", "))
			}
		}
		if len(sub.Language) > 64 || len(sub.Label) > 200 || len(sub.Note) > 1000 {
			return specError(ErrBadSubmissions, lines.at(key), "%s: language, label or note too long", key)
		}
	}
	return nil
}

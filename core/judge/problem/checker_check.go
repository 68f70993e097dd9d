package problem

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"strings"
)

func (s *Spec) checkChecker(has func(string) bool, lines lineMap) error {
	c := &s.Checker
	if c.Type == "" {
		c.Type = CheckerLines
	}
	only := func(key string, types ...string) error {
		for _, t := range types {
			if c.Type == t {
				return nil
			}
		}
		which := "the " + types[0] + " checker takes"
		if len(types) > 1 {
			which = "the " + strings.Join(types, " and ") + " checkers take"
		}
		return specError(ErrBadChecker, lines.at("checker."+key), "checker.%s: only %s one (this one is %s)", key, which, c.Type)
	}
	if c.Epsilon != 0 {
		if err := only("epsilon", CheckerFloat); err != nil {
			return err
		}
	}
	if c.Source != "" {
		if err := only("source", CheckerTestlib, CheckerKattis); err != nil {
			return err
		}
	}
	if c.CaseSensitive != nil {
		if err := only("case_sensitive", CheckerTokens, CheckerFloat); err != nil {
			return err
		}
	}
	if c.SpaceChangeSensitive {
		if err := only("space_change_sensitive", CheckerTokens, CheckerFloat); err != nil {
			return err
		}
	}
	for key, v := range map[string]*float64{"absolute_tolerance": c.AbsoluteTolerance, "relative_tolerance": c.RelativeTolerance} {
		if v == nil {
			continue
		}
		if err := only(key, CheckerFloat); err != nil {
			return err
		}
		if !(*v >= 0 && *v < 1e9) {
			return specError(ErrBadChecker, lines.at("checker."+key), "checker.%s: %v is out of range: want a number in [0, 1e9), such as 1e-6", key, *v)
		}
		if c.Epsilon != 0 {
			return specError(ErrBadChecker, lines.at("checker.epsilon"), "checker.epsilon: give epsilon (both tolerances) or absolute_tolerance/relative_tolerance, not both")
		}
	}
	if c.Args != nil {
		if err := only("args", CheckerKattis); err != nil {
			return err
		}
	}
	switch c.Type {
	case CheckerLines, CheckerExact, CheckerTokens:
	case CheckerFloat:
		if c.Epsilon == 0 && c.AbsoluteTolerance == nil && c.RelativeTolerance == nil {
			c.Epsilon = DefaultEpsilon
		}
		if c.Epsilon != 0 && !(c.Epsilon > 0 && c.Epsilon < 1) {
			return specError(ErrBadChecker, lines.at("checker.epsilon"), "checker.epsilon: %v is out of range: want a number in (0, 1), such as 1e-6", c.Epsilon)
		}
	case CheckerTestlib:
		if err := checkSource(c.Source, has, false); err != nil {
			return specError(ErrBadChecker, lines.at("checker.source"), "checker.source: %v", err)
		}
	case CheckerKattis:
		if err := checkSource(c.Source, has, true); err != nil {
			return specError(ErrBadChecker, lines.at("checker.source"), "checker.source: %v", err)
		}
		if len(c.Args) > maxValidatorArgs {
			return specError(ErrBadChecker, lines.at("checker.args"), "checker.args: %d arguments, at most %d", len(c.Args), maxValidatorArgs)
		}
		for i, a := range c.Args {
			if a == "" || len(a) > 1024 || strings.ContainsRune(a, 0) {
				return specError(ErrBadChecker, lines.at(fmt.Sprintf("checker.args[%d]", i)), "checker.args[%d]: want 1..1024 bytes without NUL", i)
			}
		}
	default:
		return specError(ErrBadChecker, lines.at("checker.type"), "checker.type: %q is not a checker; want one of %s", clip(c.Type, 40), checkerTypes)
	}
	return nil
}

// maxValidatorArgs bounds a kattis checker's arguments.
const maxValidatorArgs = 64

// sourceName is what a checker's, validator's or interactor's source, and a validator's
// folder, may be called: a plain name that no compiler reads as anything else (an option
// starts with '-', a response file with '@') and that no shell or log line needs quoting
// for.
var sourceName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.+-]*$`)

// checkSource accepts a C or C++ source (and, for a kattis validator, a Python 3 one)
// at the package's top level or, for a kattis validator, in one folder below it (a
// Kattis validator is a folder: its headers sit next to it).
func checkSource(name string, has func(string) bool, kattis bool) error {
	if name == "" {
		return errors.New("empty")
	}
	dir, base := path.Split(name)
	switch {
	case strings.HasPrefix(name, ".") || strings.HasPrefix(base, ".") || strings.Contains(strings.TrimSuffix(dir, "/"), "/"):
		return fmt.Errorf("%q must be a file at the package's top level%s", clip(name, 100), map[bool]string{true: " or in one folder", false: ""}[kattis])
	case dir != "" && !kattis:
		return fmt.Errorf("%q must be a file at the package's top level", clip(name, 100))
	case dir == "tests/" || dir == "submissions/" || dir == "statement/":
		return fmt.Errorf("%q: %s holds no tool sources", clip(name, 100), dir)
	}
	switch path.Ext(name) {
	case ".c", ".cpp", ".cc":
	case ".py":
		if !kattis {
			return fmt.Errorf("%q: want a .c, .cc or .cpp source", clip(name, 100))
		}
	default:
		if kattis {
			return fmt.Errorf("%q: want a .c, .cc, .cpp or .py source", clip(name, 100))
		}
		return fmt.Errorf("%q: want a .c, .cc or .cpp source", clip(name, 100))
	}
	for _, part := range strings.Split(name, "/") {
		if !sourceName.MatchString(part) {
			return fmt.Errorf("%q is not a plain file name: use letters, digits, '_', '.', '+' and '-', "+
				"starting with a letter, a digit or '_' (such as checker.cpp)", clip(name, 100))
		}
	}
	if !has(name) {
		return fmt.Errorf("%q not in the package", clip(name, 100))
	}
	return nil
}

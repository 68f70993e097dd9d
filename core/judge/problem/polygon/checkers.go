package polygon

import (
	"fmt"
	"path"

	"oj/core/judge/problem"
)

// stdCheckers are testlib's standard checkers oj has built in, for a package that names
// one without its source.
var stdCheckers = map[string]problem.CheckerSpec{
	"std::wcmp.cpp":   {Type: problem.CheckerTokens},
	"std::ncmp.cpp":   {Type: problem.CheckerTokens},
	"std::hcmp.cpp":   {Type: problem.CheckerTokens},
	"std::lcmp.cpp":   {Type: problem.CheckerTokens},
	"std::yesno.cpp":  {Type: problem.CheckerTokens, CaseSensitive: new(bool)},
	"std::nyesno.cpp": {Type: problem.CheckerTokens, CaseSensitive: new(bool)},
	"std::rcmp4.cpp":  {Type: problem.CheckerFloat, Epsilon: 1e-4},
	"std::rcmp6.cpp":  {Type: problem.CheckerFloat, Epsilon: 1e-6},
	"std::rcmp9.cpp":  {Type: problem.CheckerFloat, Epsilon: 1e-9},
}

func (c *converter) checker() error {
	// Headers the checker and interactor include (testlib.h) go next to them.
	for _, r := range c.x.Files.Resources {
		if ext := path.Ext(r.Path); ext == ".h" || ext == ".hpp" {
			if !c.src.Has(r.Path) {
				return &problem.InvalidError{Reason: problem.ErrMissingFile, Name: r.Path, Detail: "a resource problem.xml lists is not in the package"}
			}
			if _, err := c.b.Copy(c.src, r.Path, path.Base(r.Path), false); err != nil {
				return err
			}
			c.im.Map(r.Path, path.Base(r.Path))
		}
	}
	if ia := c.x.Assets.Interactor; ia != nil {
		to, err := c.tool(ia.Source, "interactor")
		if err != nil {
			return err
		}
		c.spec.Interactor = to
	}
	ch := c.x.Assets.Checker
	if ch == nil {
		return bad("problem.xml", "the package names no checker")
	}
	if ch.Type != "" && ch.Type != "testlib" {
		return refuse("problem.xml", "checker type %q: oj runs testlib checkers", ch.Type)
	}
	if ch.Source.Path != "" && c.src.Has(ch.Source.Path) {
		to, err := c.tool(ch.Source, "checker")
		if err != nil {
			return err
		}
		c.spec.Checker = problem.CheckerSpec{Type: problem.CheckerTestlib, Source: to}
		return nil
	}
	if std, ok := stdCheckers[ch.Name]; ok {
		c.spec.Checker = std
		c.im.Map("checker "+ch.Name, "checker "+std.Type+" (oj's own, as testlib's "+ch.Name+" compares)")
		return nil
	}
	return &problem.InvalidError{Reason: problem.ErrMissingFile, Name: ch.Source.Path,
		Detail: fmt.Sprintf("the checker (%s) is not in the package", ch.Name)}
}

// tool copies a checker's or interactor's C/C++ source to the package's top level.
func (c *converter) tool(f xmlFile, kind string) (string, error) {
	if !c.src.Has(f.Path) {
		return "", &problem.InvalidError{Reason: problem.ErrMissingFile, Name: f.Path, Detail: "the " + kind + " problem.xml names is not in the package"}
	}
	ext := path.Ext(f.Path)
	switch ext {
	case ".c", ".cc", ".cpp":
	case ".cxx", ".c++":
		ext = ".cpp"
	default:
		return "", refuse(f.Path, "a %s in %s (%s): oj builds C and C++ %ss", kind, ext, f.Type, kind)
	}
	to := kind + ext
	if _, err := c.b.Copy(c.src, f.Path, to, false); err != nil {
		return "", err
	}
	c.im.Map(f.Path, to+" ("+kind+", testlib)")
	return to, nil
}

// tags maps Polygon's solution tags to the verdicts they expect.
var tags = map[string][]string{
	"main":                            {"AC"},
	"accepted":                        {"AC"},
	"rejected":                        {"WA", "PE", "TLE", "MLE", "OLE", "RE"},
	"wrong-answer":                    {"WA"},
	"presentation-error":              {"PE"},
	"time-limit-exceeded":             {"TLE"},
	"time-limit-exceeded-or-accepted": {"TLE", "AC"},
	"time-limit-exceeded-or-memory-limit-exceeded": {"TLE", "MLE"},
	"memory-limit-exceeded":                        {"MLE"},
	"failed":                                       {"RE"},
}

func (c *converter) solutions() error {
	for _, s := range c.x.Assets.Solutions {
		expect, ok := tags[s.Tag]
		if !ok {
			c.im.Note("solution %s: tag %q unknown to oj, not verified", s.Source.Path, s.Tag)
			continue
		}
		if !c.src.Has(s.Source.Path) {
			return &problem.InvalidError{Reason: problem.ErrMissingFile, Name: s.Source.Path, Detail: "a solution problem.xml lists is not in the package"}
		}
		to := "submissions/" + s.Tag + "/" + path.Base(s.Source.Path)
		if c.b.Has(to) {
			continue
		}
		if _, err := c.b.Copy(c.src, s.Source.Path, to, false); err != nil {
			return err
		}
		lang, why := language(s.Source.Type)
		c.spec.Submissions = append(c.spec.Submissions, problem.LabeledSubmission{Source: to, Language: lang, Expect: expect, Label: s.Tag, Note: why})
	}
	if n := len(c.spec.Submissions); n > 0 {
		c.im.Map("solutions (tags)", fmt.Sprintf("submissions: %d labeled", n))
	}
	return nil
}

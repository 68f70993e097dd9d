package kattis

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"oj/core/judge/problem"
)

// statementDirs are the folders a Kattis package keeps its statement in: legacy's
// problem_statement/, the newer formats' statement/.
var statementDirs = []string{"problem_statement", "statement"}

// statementFile is a statement's own file in its folder: problem.tex (legacy: English),
// problem.<lang>.tex, .md or .pdf, <lang> as problemtools reads it (two or three
// letters, or a region such as pt-BR).
var statementFile = regexp.MustCompile(`^problem(\.([a-z]{2,3}|[a-z]{2}-[A-Z]{2}))?\.(tex|md|pdf)$`)

// topStatement is a DOMjudge-style statement at the package's top.
var topStatement = regexp.MustCompile(`^problem(\.([a-z]{2,3}|[a-z]{2}-[A-Z]{2}))?\.(pdf|html|txt)$`)

// The lines problemtools reads a legacy statement's name from, plainproblemname first.
var (
	plainName = regexp.MustCompile(`(?m)^%%\s*plainproblemname:(.*)$`)
	texName   = regexp.MustCompile(`(?m)\\problemname\{(.*)\}`)
)

// statementNames reads the problem's name per language from its TeX statements, as
// problemtools does for a legacy package: a `%% plainproblemname:` line, else
// \problemname{…}, in the language's statement (problem.tex is English).
func (c *converter) statementNames() (map[string]string, map[string]string) {
	names, from := map[string]string{}, map[string]string{}
	for _, f := range c.src.List("problem_statement") {
		m := statementFile.FindStringSubmatch(path.Base(f))
		if m == nil || m[3] != "tex" {
			continue
		}
		lang := m[2]
		if lang == "" {
			lang = "en"
		}
		if _, done := names[lang]; done {
			continue
		}
		b, err := c.src.ReadFile(f, 4<<20)
		if err != nil {
			continue
		}
		hit := plainName.FindSubmatch(b)
		if hit == nil {
			hit = texName.FindSubmatch(b)
		}
		if hit == nil {
			continue
		}
		if n := strings.TrimSpace(string(hit[1])); n != "" {
			names[lang], from[lang] = n, f
		}
	}
	return names, from
}

// name decides the problem's title: a legacy package's statements name it (problemtools
// takes those over problem.yaml's name); else problem.yaml's name (English, or the first
// language); else DOMjudge's domjudge-problem.ini; else the folder the package is in, or
// the problem's id, said in the notes.
func (c *converter) name() error {
	if c.version == Legacy {
		names, from := c.statementNames()
		if title := pick(names); title != "" {
			for _, l := range sortedKeys(names) {
				c.im.Map(from[l]+` \problemname`, fmt.Sprintf("name (%s): %s", l, names[l]))
			}
			if n := str(c.meta["name"]); n != "" && n != title {
				c.im.Note("problem.yaml name %q: the statement's name is taken, as problemtools takes it for a legacy package", n)
			}
			return c.setTitle(title, "the statement's name (en, else the first language)")
		}
	}
	names := map[string]string{}
	switch n := c.meta["name"].(type) {
	case string:
		names["en"] = n
	case map[string]any:
		for l, v := range n {
			names[l] = str(v)
		}
	}
	if title := pick(names); title != "" {
		if len(names) > 1 {
			for _, l := range sortedKeys(names) {
				c.im.Map("problem.yaml name."+l, fmt.Sprintf("name (%s): %s", l, names[l]))
			}
		}
		return c.setTitle(title, "name")
	}
	if n := c.iniName(); n != "" {
		return c.setTitle(n, "domjudge-problem.ini name")
	}
	fallback := strings.TrimSuffix(c.src.Root(), "/")
	from := "the package's folder"
	if fallback == "" {
		fallback, from = c.id, "the problem's id"
	}
	if fallback == "" {
		return bad("problem.yaml", "name: required (the problem's name): neither problem.yaml nor a statement (\\problemname) names the problem")
	}
	c.im.Note("no name in problem.yaml nor in a statement (\\problemname): the problem is named %q after %s", fallback, from)
	return c.setTitle(fallback, from)
}

func (c *converter) setTitle(title, from string) error {
	if len(title) > 200 {
		title = strings.ToValidUTF8(title[:200], "")
	}
	c.spec.Title = title
	c.im.Map(from, "title: "+title)
	return nil
}

// iniName is the name= line of DOMjudge's domjudge-problem.ini, "" without one.
func (c *converter) iniName() string {
	if !c.src.Has("domjudge-problem.ini") {
		return ""
	}
	b, err := c.src.ReadFile("domjudge-problem.ini", 64<<10)
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, "=")
		if ok && strings.TrimSpace(k) == "name" {
			return strings.Trim(strings.TrimSpace(v), `"'`)
		}
	}
	return ""
}

// pick is the English name, else the first language's; "" for none.
func pick(names map[string]string) string {
	if n := strings.TrimSpace(names["en"]); n != "" {
		return n
	}
	for _, l := range sortedKeys(names) {
		if n := strings.TrimSpace(names[l]); n != "" {
			return n
		}
	}
	return ""
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// statements puts the public statement material under statement/ — each language's
// problem.<lang>.{tex,md,pdf}, the files they bring in (graphics, inputs, Markdown
// images and links), attachments/, and a DOMjudge-style problem.pdf (.html, .txt) at
// the top — and the rest of the statement folders (solution slides, unused sources)
// under private/, for admins only. Nothing that is solution material or resolves into
// data/ is ever public, whatever references it.
func (c *converter) statements() error {
	for _, d := range statementDirs {
		if !c.src.IsDir(d) {
			continue
		}
		var roots, all []string
		walkFiles(c.src, d, &all)
		for _, f := range c.src.List(d) {
			if statementFile.MatchString(path.Base(f)) && c.mayBePublic(f) {
				roots = append(roots, f)
			}
		}
		public, refused := c.src.Referenced(roots, c.mayBePublic)
		for _, f := range refused {
			c.im.Note("%s: referenced by the statement, but kept private (solution material, or it resolves into data/)", f)
		}
		for _, f := range all {
			rel := strings.TrimPrefix(f, d+"/")
			to := problem.PrivateDir + rel
			if slices.Contains(public, f) {
				to = problem.PublicDir + rel
			}
			if _, err := c.b.Copy(c.src, f, to, false); err != nil {
				return err
			}
			if strings.HasPrefix(to, problem.PrivateDir) {
				c.im.Map(f, to+" (admins only: not the statement nor a file it references)")
			}
		}
		if len(roots) == 0 {
			c.im.Note("%s/ holds no problem.<lang>.tex, .md or .pdf: nothing of it is public", d)
		} else {
			c.im.Map(d+"/ (the statements and the files they reference)", problem.PublicDir)
		}
	}
	if c.src.IsDir("attachments") {
		var all []string
		walkFiles(c.src, "attachments", &all)
		for _, f := range all {
			if _, err := c.b.Copy(c.src, f, problem.PublicDir+f, false); err != nil {
				return err
			}
		}
		c.im.Map("attachments/ (public by the format)", problem.PublicDir+"attachments/")
	}
	for _, f := range c.src.List("") {
		if base := path.Base(f); topStatement.MatchString(base) {
			to := problem.PublicDir + base
			if c.b.Has(to) {
				c.im.Note("%s: the statement folder has a file of that name: kept out", f)
				continue
			}
			if _, err := c.b.Copy(c.src, f, to, false); err != nil {
				return err
			}
			c.im.Map(f, to+" (a statement at the package's top, DOMjudge style)")
		}
	}
	return nil
}

// mayBePublic reports whether a file may be served to contestants as statement
// material: inside a statement folder or attachments/, not solution slides or another
// hidden name, and not a link into data/.
func (c *converter) mayBePublic(f string) bool {
	top, _, _ := strings.Cut(f, "/")
	if !slices.Contains(statementDirs, top) && top != "attachments" {
		return false
	}
	for _, part := range strings.Split(f, "/") {
		if strings.HasPrefix(part, ".") || strings.HasPrefix(strings.ToLower(part), "solution") {
			return false
		}
	}
	target := c.src.Resolved(f)
	return target == f || c.mayBePublic(target)
}

// walkFiles appends every file under dir (sub-folders included, names starting with
// '.' left out) to out.
func walkFiles(src *problem.Source, dir string, out *[]string) {
	for _, f := range src.List(dir) {
		if !strings.HasPrefix(path.Base(f), ".") {
			*out = append(*out, f)
		}
	}
	for _, d := range src.Dirs(dir) {
		if !strings.HasPrefix(path.Base(d), ".") {
			walkFiles(src, d, out)
		}
	}
}

// rest refuses the folders oj cannot honour and notes those it keeps unused.
func (c *converter) rest() error {
	for _, d := range c.src.Dirs("") {
		switch base := path.Base(d); base {
		case "data", "submissions", "output_validators", "output_validator", "problem_statement", "statement", "attachments":
		case "include":
			return refuse(d, "included code (include/, added to every submission): not supported")
		case "graders":
			return refuse(d, "custom graders: oj grades groups with the default grader's modes only")
		case "static_validator":
			return refuse(d, "static validators: not supported")
		case "input_validators", "input_format_validators":
			c.im.Note("%s/: input validators, kept out (oj does not validate test inputs)", d)
		default:
			c.im.Note("%s/: not used by the judge, kept out", d)
		}
	}
	for _, f := range c.src.List("") {
		switch base := path.Base(f); {
		case base == "problem.yaml", base == ".timelimit", topStatement.MatchString(base):
		case strings.HasPrefix(base, "."):
		default:
			c.im.Note("%s: not used by the judge, kept out", f)
		}
	}
	return nil
}

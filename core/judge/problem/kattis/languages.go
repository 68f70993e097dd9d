package kattis

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"oj/core/spelling"
)

// The Kattis format names programming languages by the codes of its languages table
// (problem-package-format, appendix "Languages") and tells a source's language by its
// file ending. Both are mapped here onto oj's language ids.

// codes maps every code of the format's languages table onto the oj languages that
// accept what it names (several where oj offers several standards or runtimes of one
// language: a problem that allows cpp allows every C++ oj compiles). A code with no oj
// language maps to nil: problem.yaml may name it, and it is ignored with a note.
var codes = map[string][]string{
	"bash":       {"bash"},
	"c":          {"c11", "c17"},
	"cpp":        {"cpp17", "cpp20", "cpp23"},
	"csharp":     {"csharp"},
	"fortran":    {"fortran"},
	"go":         {"go"},
	"haskell":    {"haskell"},
	"java":       {"java17"},
	"javascript": {"javascript"},
	"kotlin":     {"kotlin"},
	"lua":        {"lua"},
	"ocaml":      {"ocaml"},
	"pascal":     {"pascal"},
	"perl":       {"perl"},
	"php":        {"php"},
	"python3":    {"python3", "pypy3"},
	"ruby":       {"ruby"},
	"rust":       {"rust"},
	"scala":      {"scala"},
	"typescript": {"typescript"},
	// In the table, with no oj language.
	"ada": nil, "algol68": nil, "apl": nil, "cgmp": nil, "cobol": nil, "cppgmp": nil, "crystal": nil, "d": nil,
	"dart": nil, "elixir": nil, "erlang": nil, "forth": nil, "fsharp": nil, "gerbil": nil, "javaalgs4": nil,
	"julia": nil, "lisp": nil, "modula2": nil, "nim": nil, "objectivec": nil, "octave": nil, "odin": nil,
	"prolog": nil, "python2": nil, "python3numpy": nil, "racket": nil, "simula": nil, "smalltalk": nil,
	"snobol": nil, "swift": nil, "visualbasic": nil, "zig": nil,
}

// maxCodes bounds the languages a problem.yaml may list.
const maxCodes = 64

// languages maps problem.yaml's languages (the string all, a space-separated string of
// codes as the legacy format writes it, or a list of codes) onto the spec's allowed oj
// languages. A name that is not a code of the table is refused naming the key; codes
// oj has no language for are ignored with a note; a list that leaves no oj language
// is refused, since no submission could be judged.
func (c *converter) languages() error {
	raw := c.meta["languages"]
	var names []string
	switch v := raw.(type) {
	case nil:
		return nil
	case string:
		if strings.TrimSpace(v) == "all" {
			return nil
		}
		names = strings.Fields(v)
	case []any:
		for _, x := range v {
			s, ok := x.(string)
			if !ok {
				return bad("problem.yaml", "languages: want language codes (text), got %v", x)
			}
			names = append(names, strings.Fields(s)...)
		}
	default:
		return bad("problem.yaml", "languages: want all, or language codes such as [cpp, python3]")
	}
	if len(names) == 0 {
		return bad("problem.yaml", "languages: empty; leave it out (or say all) to allow every language")
	}
	if len(names) > maxCodes {
		return bad("problem.yaml", "languages: %d codes, at most %d", len(names), maxCodes)
	}
	var allowed, ignored []string
	for _, n := range names {
		if n == "all" {
			return bad("problem.yaml", "languages: all stands alone: it cannot be listed with codes")
		}
		ids, known := codes[n]
		if !known {
			hint := ""
			if s := spelling.Nearest(n, codeNames()); s != "" {
				hint = fmt.Sprintf(" (did you mean %q?)", s)
			}
			return bad("problem.yaml", "languages: %q is not a language code of the Kattis format%s; its codes: %s",
				clip(n, 40), hint, strings.Join(codeNames(), ", "))
		}
		if ids == nil {
			ignored = append(ignored, n)
			continue
		}
		for _, id := range ids {
			if !slices.Contains(allowed, id) {
				allowed = append(allowed, id)
			}
		}
	}
	if len(ignored) > 0 {
		c.im.Note("languages: %s: no oj language, ignored", strings.Join(ignored, ", "))
	}
	if len(allowed) == 0 {
		return refuse("problem.yaml", "languages: %s: none of these is a language oj runs, so no submission could be judged",
			strings.Join(names, ", "))
	}
	c.spec.Languages = allowed
	c.im.Map("languages: "+strings.Join(names, " "), "languages: "+strings.Join(allowed, ", "))
	return nil
}

// codeNames lists the table's codes, sorted.
func codeNames() []string {
	out := make([]string, 0, len(codes))
	for k := range codes {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// extensions maps a source's file ending onto oj's language, as the format's table
// reads endings (.R is DOMjudge's R, which packages from DOMjudge carry; .pl is
// decided by languageOf).
var extensions = map[string]string{
	".c":  "c11",
	".cc": "cpp17", ".cpp": "cpp17", ".cxx": "cpp17", ".c++": "cpp17", ".C": "cpp17",
	".java":  "java17",
	".kt":    "kotlin",
	".scala": "scala", ".sc": "scala",
	".cs":  "csharp",
	".js":  "javascript",
	".ts":  "typescript",
	".hs":  "haskell",
	".ml":  "ocaml",
	".pas": "pascal",
	".f90": "fortran",
	".go":  "go",
	".rs":  "rust",
	".sh":  "bash",
	".lua": "lua",
	".pm":  "perl",
	".php": "php",
	".rb":  "ruby",
	".py":  "python3", ".py3": "python3",
	".R": "r",
}

// without names the languages of the format's table (and DOMjudge's) that oj does not
// run, by file ending, for the note of a submission that is not run.
var without = map[string]string{
	".lisp": "Common Lisp", ".cl": "Common Lisp", ".py2": "Python 2", ".m": "Objective-C", ".fs": "F#",
	".d": "D", ".swift": "Swift", ".cob": "COBOL", ".adb": "Ada", ".ads": "Ada", ".jl": "Julia", ".rkt": "Racket",
	".erl": "Erlang", ".ex": "Elixir", ".dart": "Dart", ".nim": "Nim", ".zig": "Zig", ".cr": "Crystal",
	".vb": "Visual Basic", ".st": "Smalltalk", ".sim": "Simula", ".sno": "Snobol", ".odin": "Odin",
	".a68": "Algol 68", ".apl": "APL", ".mod": "Modula-2", ".def": "Modula-2", ".ss": "Gerbil",
	".fth": "Forth", ".4th": "Forth", ".forth": "Forth", ".frt": "Forth", ".plg": "Prolog",
}

// languageOf maps a source's name (and its first bytes, for a shebang) onto an oj
// language, or "" with why. The table reads .pl as Prolog; a .pl whose first line is a
// Perl shebang is Perl (DOMjudge's packages name Perl .pl). A .py with a python2
// shebang is Python 2, which oj does not run.
func languageOf(name string, head []byte) (string, string) {
	ext := path.Ext(name)
	first, _, _ := strings.Cut(string(head), "\n")
	shebang := strings.HasPrefix(first, "#!")
	switch ext {
	case ".py":
		if shebang && strings.Contains(first, "python2") {
			return "", "Python 2: oj runs Python 3"
		}
	case ".pl":
		if shebang && strings.Contains(first, "perl") {
			return "perl", ""
		}
		return "", "Prolog (the Kattis format reads .pl as Prolog; Perl is .pm, or .pl with a perl shebang): oj has no Prolog"
	}
	if id, ok := extensions[ext]; ok {
		return id, ""
	}
	if l, ok := without[ext]; ok {
		return "", fmt.Sprintf("%s (%s): not a language oj runs", l, ext)
	}
	if ext == "" {
		return "", "no file ending to tell its language by"
	}
	return "", fmt.Sprintf("no oj language for %s files", clip(ext, 20))
}

// clip cuts a name from the package for an error.
func clip(s string, n int) string {
	if len(s) > n {
		return strings.ToValidUTF8(s[:n], "") + "…"
	}
	return s
}

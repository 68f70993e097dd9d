package polygon

import (
	"fmt"
	"strings"
)

// Polygon names a solution's language by its source type (problem.xml's
// <source type="cpp.g++17">), the ids of Codeforces' compilers. A Polygon package
// carries no rule on the languages a problem accepts and no per-language limits (a
// contest sets those on Codeforces), so only the source types are mapped.

// exactTypes are the source types mapped one by one.
var exactTypes = map[string]string{
	"python.3":        "python3",
	"python.pypy3":    "pypy3",
	"python.pypy3-64": "pypy3",
	"pas.fpc":         "pascal",
	// Delphi-mode Pascal: Free Pascal reads most of it, and a solution it does not
	// compile shows as a compile error in the verification, not as silence.
	"pas.dpr": "pascal",
	"ocaml":   "ocaml",
	"scala":   "scala",
	"d":       "",
}

// prefixTypes map the families of source types whose versions oj runs with one
// language (Java 8 to 21 run as Java 17, every Kotlin as oj's Kotlin).
var prefixTypes = []struct{ prefix, id string }{
	{"java", "java17"},
	{"kotlin", "kotlin"},
	{"csharp.", "csharp"},
	{"js.", "javascript"},
	{"v8.", "javascript"},
	{"nodejs", "javascript"},
	{"haskell", "haskell"},
	{"perl", "perl"},
	{"php", "php"},
	{"ruby", "ruby"},
	{"rust", "rust"},
	{"go", "go"},
	{"c.", "c11"},
}

// language maps a Polygon source type onto an oj language, "" with why when oj runs
// none of its kind.
func language(typ string) (string, string) {
	if strings.HasPrefix(typ, "cpp.") {
		return cppStandard(typ), ""
	}
	if id, ok := exactTypes[typ]; ok {
		if id == "" {
			return "", fmt.Sprintf("Polygon's %q: not a language oj runs", typ)
		}
		return id, ""
	}
	switch typ {
	case "python.2", "python.pypy2":
		return "", fmt.Sprintf("Polygon's %q is Python 2: oj runs Python 3", typ)
	case "pas.pascalabc":
		return "", "PascalABC.NET (Polygon's \"pas.pascalabc\"): not a language oj runs (its Pascal is Free Pascal)"
	}
	for _, p := range prefixTypes {
		if strings.HasPrefix(typ, p.prefix) {
			return p.id, ""
		}
	}
	return "", fmt.Sprintf("no oj language for Polygon's %q", typ)
}

// cppStandard picks the C++ standard a cpp.* source type compiles with: the newest
// standard its name gives (cpp.gcc14-64-msys2-g++23 is C++23, cpp.g++20 and
// cpp.clang++-c++20-diagnose C++20), C++17 for the older compilers (cpp.g++, g++11,
// g++14, g++17, ms2017).
func cppStandard(typ string) string {
	switch {
	case strings.Contains(typ, "++23") || strings.Contains(typ, "++2b"):
		return "cpp23"
	case strings.Contains(typ, "++20") || strings.Contains(typ, "++2a"):
		return "cpp20"
	}
	return "cpp17"
}

package polygon

import (
	"strings"
	"testing"
)

// TestLanguageOfEverySourceType holds the mapping of Polygon's source types (the ids
// of Codeforces' compilers) onto oj's language ids.
func TestLanguageOfEverySourceType(t *testing.T) {
	cases := []struct{ typ, want, why string }{
		{"c.gcc", "c11", ""}, {"c.gcc11", "c11", ""},
		{"cpp.g++", "cpp17", ""}, {"cpp.g++11", "cpp17", ""}, {"cpp.g++14", "cpp17", ""}, {"cpp.g++17", "cpp17", ""},
		{"cpp.ms2017", "cpp17", ""}, {"cpp.msys2-mingw64-9-g++17", "cpp17", ""}, {"cpp.clang++-diagnose", "cpp17", ""},
		{"cpp.g++20", "cpp20", ""}, {"cpp.gcc11-64-winlibs-g++20", "cpp20", ""}, {"cpp.gcc13-64-winlibs-g++20", "cpp20", ""},
		{"cpp.clang++-c++20-diagnose", "cpp20", ""},
		{"cpp.gcc14-64-msys2-g++23", "cpp23", ""},
		{"java8", "java17", ""}, {"java11", "java17", ""}, {"java17", "java17", ""}, {"java21", "java17", ""},
		{"kotlin", "kotlin", ""}, {"kotlin16", "kotlin", ""}, {"kotlin17", "kotlin", ""}, {"kotlin19", "kotlin", ""},
		{"csharp.mono", "csharp", ""}, {"csharp.dotnet-core", "csharp", ""}, {"csharp.dotnet-sdk-6", "csharp", ""},
		{"js.v8", "javascript", ""}, {"v8.3", "javascript", ""}, {"v8.nodejs", "javascript", ""},
		{"haskell.ghc", "haskell", ""},
		{"ocaml", "ocaml", ""},
		{"scala", "scala", ""},
		{"pas.fpc", "pascal", ""}, {"pas.dpr", "pascal", ""},
		{"perl.5", "perl", ""},
		{"php.5", "php", ""},
		{"python.3", "python3", ""},
		{"python.pypy3", "pypy3", ""}, {"python.pypy3-64", "pypy3", ""},
		{"ruby", "ruby", ""}, {"ruby.2", "ruby", ""}, {"ruby.3", "ruby", ""},
		{"rust", "rust", ""}, {"rust.2021", "rust", ""},
		{"go", "go", ""},
		{"python.2", "", "Python 2"}, {"python.pypy2", "", "Python 2"},
		{"pas.pascalabc", "", "PascalABC.NET"},
		{"d", "", "not a language oj runs"},
		{"h.g++", "", `no oj language for Polygon's "h.g++"`},
	}
	for _, c := range cases {
		got, why := language(c.typ)
		if got != c.want || (c.why == "") != (why == "") || !strings.Contains(why, c.why) {
			t.Errorf("%s: %q (%s), want %q (%s)", c.typ, got, why, c.want, c.why)
		}
	}
}

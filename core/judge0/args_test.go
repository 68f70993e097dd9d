package judge0

import (
	"errors"
	"reflect"
	"testing"
)

func TestSplitArgsSplitsAsBashWouldAfterJudge0Strips(t *testing.T) {
	for _, c := range []struct {
		name, in string
		want     []string
		err      error
	}{
		{"empty", "", nil, nil},
		{"blanks", "  alpha\tbeta  ", []string{"alpha", "beta"}, nil},
		{"single quotes keep blanks", `'a b' c`, []string{"a b", "c"}, nil},
		{"double quotes and escapes", `"a \"b\" c" d\ e`, []string{`a "b" c`, "d e"}, nil},
		{"empty quoted word", `'' x`, []string{"", "x"}, nil},
		{"adjacent quotes join", `a'b'"c"`, []string{"abc"}, nil},
		{"metacharacters are removed", "a;b|c&d$e`f`<g>h", []string{"abcdefgh"}, nil},
		{"a substitution loses its $ and backquotes", "$(id) `id`", nil, ErrParenthesis},
		{"comment ends the words", "a #b c", []string{"a"}, nil},
		{"hash inside a word is kept", "a#b", []string{"a#b"}, nil},
		{"globs and tilde pass as typed", "*.txt ~ {a,b}", []string{"*.txt", "~", "{a,b}"}, nil},
		{"unterminated single", "'abc", nil, ErrUnterminatedQuote},
		{"unterminated double", `"abc`, nil, ErrUnterminatedQuote},
		{"line break inside", "a\nb", nil, ErrLineBreak},
		{"trailing line break is trimmed", "a b\n", []string{"a", "b"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := SplitArgs(c.in)
			if !errors.Is(err, c.err) {
				t.Fatalf("SplitArgs(%q) error %v, want %v", c.in, err, c.err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("SplitArgs(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

func FuzzSplitArgs(f *testing.F) {
	for _, s := range []string{"a b", `'x y' "z\"w"`, "a\\", "#", "$(x)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		words, err := SplitArgs(s)
		if err != nil {
			return
		}
		for _, w := range words {
			for _, r := range Stripped {
				for _, c := range w {
					if c == r {
						t.Fatalf("SplitArgs(%q) kept %q in %q", s, r, w)
					}
				}
			}
		}
	})
}

func TestCompilerOptionsAllowList(t *testing.T) {
	for _, c := range []struct {
		lang string
		opts []string
		ok   bool
	}{
		{"cpp17", []string{"-O2", "-DFOO", "-DN=10", "-std=c++20", "-Wall", "-lm"}, true},
		{"cpp17", []string{"-o", "/tmp/x"}, false},
		{"cpp17", []string{"-I/etc"}, false},
		{"cpp17", []string{"@/etc/passwd"}, false},
		{"cpp17", []string{"-fplugin=/x.so"}, false},
		{"c11", []string{"-std=c++17"}, false},
		{"c11", []string{"-std=gnu11", "-O3"}, true},
		{"rust", []string{"-C", "opt-level=3"}, false},
		{"rust", []string{"-Copt-level=3", "--edition=2021"}, true},
		{"python3", []string{"-O"}, false},
	} {
		err := CompilerOptions(c.lang, c.opts)
		if (err == nil) != c.ok {
			t.Errorf("CompilerOptions(%s, %q) = %v, want ok=%v", c.lang, c.opts, err, c.ok)
		}
	}
}

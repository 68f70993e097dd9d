package kattis

import (
	"slices"
	"strings"
	"testing"

	"oj/core/judge/problem"
)

// TestLanguageOfEveryEnding holds the mapping of a labeled submission's file ending
// onto oj's language ids, for every ending the Kattis languages table (and DOMjudge's
// R) gives a language oj runs, and the reasons of those it does not.
func TestLanguageOfEveryEnding(t *testing.T) {
	cases := []struct{ name, head, want, why string }{
		{"a.c", "", "c11", ""},
		{"a.cc", "", "cpp17", ""}, {"a.cpp", "", "cpp17", ""}, {"a.cxx", "", "cpp17", ""}, {"a.c++", "", "cpp17", ""}, {"a.C", "", "cpp17", ""},
		{"Different.java", "", "java17", ""},
		{"hello.kt", "", "kotlin", ""},
		{"Different.scala", "", "scala", ""}, {"a.sc", "", "scala", ""},
		{"different.cs", "", "csharp", ""},
		{"different.js", "", "javascript", ""},
		{"a.ts", "", "typescript", ""},
		{"different.hs", "", "haskell", ""},
		{"different.ml", "", "ocaml", ""},
		{"a.pas", "", "pascal", ""},
		{"a.f90", "", "fortran", ""},
		{"different.go", "", "go", ""},
		{"different.rs", "", "rust", ""},
		{"a.sh", "", "bash", ""},
		{"a.lua", "", "lua", ""},
		{"a.pm", "", "perl", ""},
		{"a.pl", "#!/usr/bin/perl -w\nprint 1;\n", "perl", ""},
		{"different.php", "", "php", ""},
		{"different.rb", "", "ruby", ""},
		{"different_py3.py", "import sys\n", "python3", ""},
		{"a.py3", "", "python3", ""},
		{"fltcmp-test-write-files-between-testcases.R", "", "r", ""},
		{"different_py2.py", "#!/usr/bin/env python2\n", "", "Python 2"},
		{"a.py2", "", "", "Python 2"},
		{"different.pl", ":- initialization(main).\n", "", "Prolog"},
		{"different.lisp", "", "", "Common Lisp (.lisp): not a language oj runs"},
		{"a.swift", "", "", "Swift"},
		{"README", "", "", "no file ending"},
		{"a.xyz", "", "", "no oj language for .xyz files"},
	}
	for _, c := range cases {
		got, why := languageOf("submissions/accepted/"+c.name, []byte(c.head))
		if got != c.want || (c.why == "") != (why == "") || !strings.Contains(why, c.why) {
			t.Errorf("%s: %q (%s), want %q (%s)", c.name, got, why, c.want, c.why)
		}
	}
}

// TestLanguagesCodes: problem.yaml's languages, in each form the versions write it,
// become the spec's oj languages; codes oj runs nothing for are noted, not refused.
func TestLanguagesCodes(t *testing.T) {
	cases := []struct {
		value any
		want  []string
		note  string
	}{
		{nil, nil, ""},
		{"all", nil, ""},
		{"cpp python3", []string{"cpp17", "cpp20", "cpp23", "python3", "pypy3"}, ""},
		{[]any{"c", "java", "kotlin"}, []string{"c11", "c17", "java17", "kotlin"}, ""},
		{[]any{"csharp", "prolog", "javascript", "cpp"}, []string{"csharp", "javascript", "cpp17", "cpp20", "cpp23"}, "prolog: no oj language"},
		{"haskell ocaml pascal fortran rust go bash lua perl php ruby scala typescript",
			[]string{"haskell", "ocaml", "pascal", "fortran", "rust", "go", "bash", "lua", "perl", "php", "ruby", "scala", "typescript"}, ""},
	}
	for _, c := range cases {
		cv := &converter{meta: map[string]any{"languages": c.value}}
		if err := cv.languages(); err != nil {
			t.Fatalf("%v: %v", c.value, err)
		}
		if !slices.Equal(cv.spec.Languages, c.want) {
			t.Errorf("%v: languages %q, want %q", c.value, cv.spec.Languages, c.want)
		}
		if c.note != "" && !slices.ContainsFunc(cv.im.Notes, func(n string) bool { return strings.Contains(n, c.note) }) {
			t.Errorf("%v: notes %q, want one saying %q", c.value, cv.im.Notes, c.note)
		}
	}
	for _, bad := range []struct {
		value  any
		reason error
		want   string
	}{
		{"cpp c++", problem.ErrBadYAML, `"c++" is not a language code of the Kattis format`},
		{"pyhton3", problem.ErrBadYAML, `did you mean "python3"?`},
		{"", problem.ErrBadYAML, "empty"},
		{[]any{"all", "cpp"}, problem.ErrBadYAML, "all stands alone"},
		{[]any{1}, problem.ErrBadYAML, "want language codes"},
		{map[string]any{"cpp": true}, problem.ErrBadYAML, "want all, or language codes"},
		{"prolog lisp", problem.ErrUnsupported, "none of these is a language oj runs"},
	} {
		cv := &converter{meta: map[string]any{"languages": bad.value}}
		err := cv.languages()
		if err == nil || !strings.Contains(err.Error(), bad.want) || !strings.Contains(err.Error(), "problem.yaml") {
			t.Errorf("%v: err = %v, want one naming problem.yaml and saying %q", bad.value, err, bad.want)
		}
	}
}

// TestEveryCodeIsOfTheTable: the ids a code maps onto are oj's fixed ids.
func TestEveryCodeIsOfTheTable(t *testing.T) {
	ids := []string{"c11", "c17", "cpp17", "cpp20", "cpp23", "python3", "pypy3", "go", "java17", "rust", "bash", "perl",
		"lua", "ruby", "php", "kotlin", "scala", "csharp", "javascript", "typescript", "haskell", "ocaml", "pascal", "fortran", "r"}
	for code, mapped := range codes {
		for _, id := range mapped {
			if !slices.Contains(ids, id) {
				t.Errorf("code %s maps onto %q, not an oj language id", code, id)
			}
		}
	}
	for ext, id := range extensions {
		if !slices.Contains(ids, id) {
			t.Errorf("%s maps onto %q, not an oj language id", ext, id)
		}
	}
}

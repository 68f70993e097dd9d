package main

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestLanguageByExtension holds submit's extension → language map: every language id
// of the judge's list that has a file ending of its own is guessed from it.
func TestLanguageByExtension(t *testing.T) {
	for file, want := range map[string]string{
		"a.c": "c11", "a.cpp": "cpp17", "a.cc": "cpp17", "a.cxx": "cpp17", "a.c++": "cpp17", "a.py": "python3",
		"a.go": "go", "Main.java": "java17", "a.rs": "rust", "hello.kt": "kotlin", "A.scala": "scala",
		"a.cs": "csharp", "a.js": "javascript", "a.ts": "typescript", "a.hs": "haskell", "a.ml": "ocaml",
		"a.pas": "pascal", "a.f90": "fortran", "a.F90": "fortran", "a.f08": "fortran", "a.lua": "lua",
		"a.pl": "perl", "a.pm": "perl", "a.sh": "bash", "a.rb": "ruby", "a.php": "php", "a.R": "r", "a.r": "r",
		"a.f": "", "a.lisp": "", "notes.txt": "",
	} {
		if got := languageByExt[strings.ToLower(filepath.Ext(file))]; got != want {
			t.Errorf("%s: %q, want %q", file, got, want)
		}
	}
	ids := []string{"c11", "cpp17", "python3", "go", "java17", "rust", "bash", "perl", "lua", "ruby", "php",
		"kotlin", "scala", "csharp", "javascript", "typescript", "haskell", "ocaml", "pascal", "fortran", "r"}
	for ext, id := range languageByExt {
		if !slices.Contains(ids, id) {
			t.Errorf("%s guesses %q, not a language id of the judge's list", ext, id)
		}
	}
	for _, id := range ids {
		if !slices.Contains(slices.Collect(maps.Values(languageByExt)), id) {
			t.Errorf("no extension guesses %s", id)
		}
	}
}

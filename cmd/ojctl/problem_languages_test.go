package main

import (
	"testing"

	"oj/core/judge/problem/problemtest"
)

// problem show says which languages a problem accepts and its time factors; a submit
// in another language is refused with the server's reason, naming the allowed ones.
func TestProblemShowLanguages(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir := writeTree(t, "ruled", problemtest.APlusB("title: Ruled\nlanguages: [cpp17, python3]\ntime_factors: {python3: 2}\n"))
	wantCode(t, e.ojctl("problem", "push", dir), 0)
	r := e.ojctl("problem", "show", "ruled")
	wantCode(t, r, 0)
	wantIn(t, "stdout", r.stdout, "Languages:", "cpp17, python3 (python3: time × 2)")
	r = e.ojctl("problem", "show", "aplusb")
	wantCode(t, r, 0)
	wantIn(t, "stdout", r.stdout, "Languages:", "any")

	r = e.ojctl("submit", writeFile(t, "Main.java", "class Main {}"), "--problem", "ruled")
	wantCode(t, r, 1)
	wantIn(t, "stderr", r.stderr, "language_not_allowed", "its languages are cpp17, python3")
}

package core_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// floors is the house plan: every package of the module lives in one room (the longest
// prefix below that matches its import path), and every room sits on a floor. A
// package may import its own room freely (Go refuses cycles there) and other rooms only
// on a lower floor, so every arrow between rooms points down. A new package that matches
// no room fails the test: place it here on purpose.
var floors = []struct {
	floor int
	rooms []string
	exact bool // the room is that one package, not its sub-packages
}{
	// The contracts and pure values everything else speaks: states and verdicts, the
	// JSON shapes of the HTTP API, the clock, key spelling, webhook signatures, the
	// migrations.
	{0, []string{"oj/core/job", "oj/core/wire", "oj/core/clock", "oj/core/spelling", "oj/core/webhook", "oj/sql"}, false},
	// The adapters to the outside: PostgreSQL, Redis Streams, the kernel's sandbox.
	{1, []string{"oj/core/store", "oj/core/stream", "oj/sandbox"}, false},
	// What acts on them: judging (languages, packages, checkers, artefacts), the audited
	// admin actions, verification records, the throwaway test stack.
	{2, []string{"oj/core/judge", "oj/core/ops", "oj/core/verification", "oj/core/testenv"}, false},
	// What turns judging and rows into answers and work: rendering (oj's own shapes and
	// Judge0's), builds, the worker.
	{3, []string{"oj/core/render", "oj/core/judge0", "oj/core/build", "oj/core/worker"}, false},
	// The dispatcher: relay, reconciler, webhook delivery.
	{4, []string{"oj/core/dispatch"}, false},
	// The HTTP face and its Go client; the Judge0 face beside it, which the API server
	// mounts and lends its tokens and limits through an interface (neither imports the
	// other).
	{5, []string{"oj/core/api", "oj/core/api/judge0"}, false},
	// The operator's dashboard and the end-to-end tests that drive everything.
	{6, []string{"oj/tui", "oj/core/e2e"}, false},
	// The binaries and the scripts' tests.
	{7, []string{"oj/cmd", "oj/scripts"}, false},
	// The package comment of core (no code).
	{0, []string{"oj/core"}, true},
}

// roomOf returns the room and floor of an import path of this module.
func roomOf(path string) (room string, floor int, ok bool) {
	for _, f := range floors {
		for _, r := range f.rooms {
			if (path == r || !f.exact && strings.HasPrefix(path, r+"/")) && len(r) > len(room) {
				room, floor, ok = r, f.floor, true
			}
		}
	}
	return room, floor, ok
}

// TestImportsPointDown reads the imports of every non-test Go file of the module and
// fails on any that points to a room on the same or a higher floor.
func TestImportsPointDown(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found above core: %v", err)
	}
	fset := token.NewFileSet()
	checked := 0
	var problems []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor" || name == "var") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		pkg := "oj/" + filepath.ToSlash(rel)
		room, floor, ok := roomOf(pkg)
		if !ok {
			problems = append(problems, pkg+": in no room of core/layers_test.go's floors; place it there")
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		checked++
		for _, imp := range f.Imports {
			target := strings.Trim(imp.Path.Value, `"`)
			if !strings.HasPrefix(target, "oj/") {
				continue
			}
			troom, tfloor, ok := roomOf(target)
			if !ok {
				problems = append(problems, pkg+" imports "+target+", which is in no room")
				continue
			}
			if troom != room && tfloor >= floor {
				rp, _ := filepath.Rel(root, p)
				problems = append(problems, rp+": "+room+" (floor "+itoa(floor)+") imports "+target+
					" (room "+troom+", floor "+itoa(tfloor)+"): arrows between rooms point down only")
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("read only %d Go files under %s; the walk missed the module", checked, root)
	}
	sort.Strings(problems)
	for _, p := range problems {
		t.Error(p)
	}
}

// TestRoomOfPicksTheLongestPrefix keeps the room lookup honest: a sub-package belongs to
// its nearest room, and a path that only shares a name prefix belongs to none of it.
func TestRoomOfPicksTheLongestPrefix(t *testing.T) {
	for _, c := range []struct {
		path, room string
		floor      int
		ok         bool
	}{
		{"oj/core/api/client", "oj/core/api", 5, true},
		{"oj/core/wire", "oj/core/wire", 0, true},
		{"oj/core/judge/problem/kattis", "oj/core/judge", 2, true},
		{"oj/core/jobs", "", 0, false},
		{"oj/core", "oj/core", 0, true},
		{"oj/tools/x", "", 0, false},
	} {
		room, floor, ok := roomOf(c.path)
		if room != c.room || floor != c.floor || ok != c.ok {
			t.Errorf("roomOf(%q) = %q, %d, %v; want %q, %d, %v", c.path, room, floor, ok, c.room, c.floor, c.ok)
		}
	}
}

func itoa(n int) string { return string(rune('0' + n)) }

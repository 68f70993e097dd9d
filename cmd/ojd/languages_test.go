package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"oj/core/judge/lang"
)

func TestLanguagesInstallInstallsOnlyWhatIsMissing(t *testing.T) {
	langs, err := lang.Parse([]byte(`languages:
- {id: a, source_file: a, run: [a], lane: light, time_factor: 1, memory_factor: 1, processes: 1, packages: [pa, shared]}
- {id: b, source_file: b, run: [b], lane: light, time_factor: 1, memory_factor: 1, processes: 1, packages: [shared, pb]}
- {id: c, source_file: c, run: [c], lane: light, time_factor: 1, memory_factor: 1, processes: 1}
`))
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{"shared": true}
	var calls [][]string
	apt := func(_ context.Context, args ...string) error {
		calls = append(calls, args)
		if args[0] == "install" {
			for _, p := range args[3:] {
				have[p] = true
			}
		}
		return nil
	}
	installed := func(p string) bool { return have[p] }

	var out bytes.Buffer
	if err := installLanguages(context.Background(), &out, langs, nil, true, installed, apt); err != nil {
		t.Fatal(err)
	}
	if len(calls) != 0 || !strings.Contains(out.String(), "would run: apt-get update && apt-get install -y --no-install-recommends pa pb") ||
		!strings.Contains(out.String(), "by hand): c") {
		t.Fatalf("dry run: calls %v, said:\n%s", calls, out.String())
	}
	out.Reset()
	if err := installLanguages(context.Background(), &out, langs, []string{"b"}, false, installed, apt); err != nil {
		t.Fatal(err)
	}
	if len(calls) != 2 || calls[0][0] != "update" || strings.Join(calls[1], " ") != "install -y --no-install-recommends pb" || have["pa"] {
		t.Fatalf("--only b: calls %v", calls)
	}
	if err := installLanguages(context.Background(), &out, langs, []string{"cobol"}, true, installed, apt); err == nil {
		t.Fatal("--only with an unknown language accepted")
	}
	// A package apt-get did not install after all is an error naming it.
	noop := func(context.Context, ...string) error { return nil }
	if err := installLanguages(context.Background(), &out, langs, nil, false, installed, noop); err == nil ||
		!strings.Contains(err.Error(), "pa") {
		t.Fatalf("a package still missing: %v", err)
	}
}

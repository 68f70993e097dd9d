package lang

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDefaultsHaveTheSixLanguages(t *testing.T) {
	s := Default()
	for _, id := range []string{"c11", "cpp17", "python3", "go", "java17", "rust"} {
		l, ok := s.Get(id)
		if !ok {
			t.Fatalf("default language %s missing", id)
		}
		if l.Lane == "" || l.TimeFactor <= 0 || l.MemoryFactor <= 0 || l.Processes <= 0 {
			t.Errorf("%s: incomplete: %+v", id, l)
		}
	}
	// Every default language can be installed and is detected (Go comes from go.dev).
	for _, id := range []string{"c11", "c17", "cpp17", "cpp20", "cpp23", "python3", "pypy3", "go", "java17", "rust",
		"bash", "perl", "lua", "ruby", "php"} {
		l, ok := s.Get(id)
		if !ok {
			t.Fatalf("default language %s missing", id)
		}
		if len(l.Version) == 0 || !strings.Contains(l.Name, "{version}") || (len(l.Packages) == 0 && id != "go") {
			t.Errorf("%s: no version command, {version} in its name or packages: %+v", id, l)
		}
	}
	if l, _ := s.Get("python3"); l.Lane != "light" {
		t.Errorf("python3 lane = %s, want light", l.Lane)
	}
	if l, _ := s.Get("cpp17"); l.Lane != "heavy" {
		t.Errorf("cpp17 lane = %s, want heavy", l.Lane)
	}
}

func TestParseRejectsBadFiles(t *testing.T) {
	cases := map[string]struct{ yaml, want string }{
		"unknown key":  {"languages:\n- {id: x, source_file: a, run: [a], lane: light, time_factor: 1, memory_factor: 1, processes: 1, bogus: 1}\n", "bogus"},
		"bad lane":     {"languages:\n- {id: x, source_file: a, run: [a], lane: fast, time_factor: 1, memory_factor: 1, processes: 1}\n", "lane"},
		"no run":       {"languages:\n- {id: x, source_file: a, lane: light, time_factor: 1, memory_factor: 1, processes: 1}\n", "run"},
		"path source":  {"languages:\n- {id: x, source_file: ../a, run: [a], lane: light, time_factor: 1, memory_factor: 1, processes: 1}\n", "source_file"},
		"duplicate":    {"languages:\n- {id: x, source_file: a, run: [a], lane: light, time_factor: 1, memory_factor: 1, processes: 1}\n- {id: x, source_file: a, run: [a], lane: light, time_factor: 1, memory_factor: 1, processes: 1}\n", "duplicate"},
		"zero factor":  {"languages:\n- {id: x, source_file: a, run: [a], lane: light, time_factor: 0, memory_factor: 1, processes: 1}\n", "time_factor"},
		"no languages": {"languages: []\n", "no languages"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Parse([]byte(c.yaml))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want mention of %q", err, c.want)
			}
		})
	}
}

func TestExpandPlaceholders(t *testing.T) {
	got := Expand([]string{"java", "-Xmx{memory_mb}m", "{src}", "-I{pch_dir}", "{out}"}, Vars{Src: "Main.java", MemoryMB: 256, PCHDir: "/p", Out: "o.gch"})
	want := "java -Xmx256m Main.java -I/p o.gch"
	if strings.Join(got, " ") != want {
		t.Fatalf("got %q, want %q", strings.Join(got, " "), want)
	}
}

func TestCheckToolchainsReportsMissingAndUnreachable(t *testing.T) {
	dir := t.TempDir()
	private := filepath.Join(dir, "private")
	if err := os.MkdirAll(private, 0o700); err != nil {
		t.Fatal(err)
	}
	prog := filepath.Join(private, "cc")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	y := "languages:\n" +
		"- {id: gone, source_file: a, compile: [/nonexistent/cc], run: [./a], lane: heavy, time_factor: 1, memory_factor: 1, processes: 1}\n" +
		"- {id: hidden, source_file: a, compile: [" + prog + "], run: [./a], lane: heavy, time_factor: 1, memory_factor: 1, processes: 1}\n" +
		"- {id: fine, source_file: a, run: [/bin/sh], lane: light, time_factor: 1, memory_factor: 1, processes: 1}\n"
	s, err := Parse([]byte(y))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, m := range s.CheckToolchains() {
		got[m.Language] = m.Reason
	}
	if !strings.Contains(got["gone"], "not found") {
		t.Errorf("gone: %q", got["gone"])
	}
	if !strings.Contains(got["hidden"], "not searchable") {
		t.Errorf("hidden: %q", got["hidden"])
	}
	if r, ok := got["fine"]; ok {
		t.Errorf("fine reported: %q", r)
	}
}

// TestDefaultToolchainsOnThisHost logs what this machine lacks; it fails only if the
// check itself is broken for a toolchain every test host has (gcc).
func TestDefaultToolchainsOnThisHost(t *testing.T) {
	for _, m := range Default().CheckToolchains() {
		t.Logf("unusable: %s", m)
		if m.Language == "c11" || m.Language == "cpp17" {
			t.Errorf("gcc/g++ reported unusable: %s", m)
		}
	}
}

func TestDisplayNameAndVersion(t *testing.T) {
	s, err := Parse([]byte(`languages:
- {id: a, name: "PyPy {version}", source_file: a, run: [a], lane: light, time_factor: 1, memory_factor: 1, processes: 1,
   version: [a, --version], version_regexp: 'PyPy (\d+\.\d+\.\d+)'}
- {id: b, name: "C11 (gcc {version})", source_file: b, run: [b], lane: light, time_factor: 1, memory_factor: 1, processes: 1,
   version: [b]}
`))
	if err != nil {
		t.Fatal(err)
	}
	a, _ := s.Get("a")
	b, _ := s.Get("b")
	out := "Python 3.9.16 (7.3.11+dfsg-2+deb12u3, Dec 30 2024, 22:36:23)\n[PyPy 7.3.11 with GCC 12.2.0]\n"
	for _, c := range []struct{ got, want string }{
		{a.ParseVersion(out), "7.3.11"},
		{a.ParseVersion("nothing here"), ""},
		{b.ParseVersion("\n  12.2.0\nmore"), "12.2.0"},
		{a.DisplayName("7.3.11"), "PyPy 7.3.11"},
		{a.DisplayName(""), "PyPy"},
		{b.DisplayName(""), "C11 (gcc)"},
		{b.DisplayName("12.2.0"), "C11 (gcc 12.2.0)"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	for name, y := range map[string]string{
		"bad regexp":   "version: [a], version_regexp: '('",
		"regexp alone": "version_regexp: 'x'",
		"bad package":  "packages: ['Not A Package']",
	} {
		_, err := Parse([]byte("languages:\n- {id: a, source_file: a, run: [a], lane: light, time_factor: 1, memory_factor: 1, processes: 1, " + y + "}\n"))
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestOOMMarkers(t *testing.T) {
	l := &Language{OOMMarker: "MemoryError", OOMMarkers: []string{"Allowed memory size of"}}
	if !l.IsOOM([]byte("Traceback…\nMemoryError\n")) || !l.IsOOM([]byte("PHP Fatal error:  Allowed memory size of 268435456 bytes exhausted")) ||
		l.IsOOM([]byte("ValueError")) {
		t.Fatal("markers not matched as they should")
	}
}

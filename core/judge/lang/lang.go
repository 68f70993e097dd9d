// Package lang describes the languages a judge compiles and runs: their commands, lanes,
// limits factors and the host paths their toolchains need. The defaults live in
// languages.yaml (embedded); a deployment may load its own file in the same format.
package lang

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"oj/core/job"
)

//go:embed languages.yaml
var defaultYAML []byte

// Language is one configured language.
type Language struct {
	ID string `yaml:"id"`
	// Name is what users see; {version} in it is the version the worker's self-check
	// detected (Version, VersionRegexp), dropped when none was (DisplayName).
	Name       string `yaml:"name"`
	SourceFile string `yaml:"source_file"`
	// Packages are the Debian packages that provide the toolchain (scripts/deps.sh and
	// ojd languages install install them); empty for a toolchain installed otherwise.
	Packages []string `yaml:"packages"`
	// Version is the argv the self-check runs in the sandbox to prove the toolchain
	// works there and to learn its version (from stdout and stderr together); a
	// language whose version command fails is not announced.
	Version []string `yaml:"version"`
	// VersionRegexp picks the version out of Version's output: its first group (or the
	// whole match without one). Empty: the first line.
	VersionRegexp string `yaml:"version_regexp"`
	// Compile is the compiler's argv; empty for a language that runs its source as is.
	Compile []string `yaml:"compile"`
	// CompileEnv is added to the compiler's environment (Go's cache, home…).
	CompileEnv []string `yaml:"compile_env"`
	// CompileProcesses is the pids limit of the compile (0: the judge's compile default).
	CompileProcesses int `yaml:"compile_processes"`
	// CompileTimeFactor multiplies the judge's compile CPU and wall limits (0 means 1).
	CompileTimeFactor float64 `yaml:"compile_time_factor"`
	// PrecompiledHeader, when set, is built once per worker (see the judge).
	PrecompiledHeader *PCH `yaml:"precompiled_header"`
	// CompileCache, when set, is a build cache warmed once per worker and replicated
	// into each compile's work dir.
	CompileCache  *CompileCache `yaml:"compile_cache"`
	Run           []string      `yaml:"run"`
	RunEnv        []string      `yaml:"run_env"`
	Lane          job.Lane      `yaml:"lane"`
	TimeFactor    float64       `yaml:"time_factor"`
	MemoryFactor  float64       `yaml:"memory_factor"`
	ReadOnlyPaths []string      `yaml:"read_only_paths"`
	Processes     int           `yaml:"processes"`
	// ClassFromSource (Java) names the source file and the class run after the
	// source's main class (JavaMainClass), as Kattis, DOMjudge and Codeforces do: a
	// public class Different is compiled as Different.java and run as Different.
	// SourceFile's stem is the class when the source names none. {class} in the
	// run command is the class.
	ClassFromSource bool `yaml:"class_from_source"`
	// OOMMarker, when found in a failed run's stderr, turns RE into MLE: runtimes that
	// raise their own out-of-memory error (JVM heap, Python MemoryError) before the
	// cgroup kills them.
	OOMMarker string `yaml:"oom_marker"`
	// OOMMarkers are more such markers, for runtimes with several ways of saying it.
	OOMMarkers []string `yaml:"oom_markers"`

	versionRE *regexp.Regexp
}

// PCH is a precompiled header: Header is the name user code includes, Compile the argv
// that builds it ({src} a file including Header, {out} the .gch to write).
type PCH struct {
	Header  string   `yaml:"header"`
	Compile []string `yaml:"compile"`
}

// CompileCache is a compiler's build cache: Dir (relative to the work dir, where the
// compile_env points the compiler) is filled once per worker by compiling WarmSource.
type CompileCache struct {
	Dir        string `yaml:"dir"`
	WarmSource string `yaml:"warm_source"`
}

// Compiled reports whether the language has a compile step.
func (l *Language) Compiled() bool { return len(l.Compile) > 0 }

// Entry returns the file a submission's source is written to and the class it runs
// as ({class}): the language's source_file and its stem, or with ClassFromSource the
// source's main class.
func (l *Language) Entry(source string) (file, class string) {
	class = strings.TrimSuffix(l.SourceFile, path.Ext(l.SourceFile))
	if !l.ClassFromSource {
		return l.SourceFile, class
	}
	if c := JavaMainClass(source); c != "" {
		class = c
	}
	simple := class[strings.LastIndexByte(class, '.')+1:]
	return simple + path.Ext(l.SourceFile), class
}

// Vars are the values substituted for the placeholders of a command.
type Vars struct {
	Src      string
	Class    string
	MemoryMB int // the problem's memory limit, before memory_factor
	StackMB  int // the stack a run may use (RLIMIT_STACK), in MiB
	PCHDir   string
	Out      string
	WorkDir  string
}

// Placeholders are the placeholders Expand knows (documented in languages.yaml).
var Placeholders = []string{"{src}", "{class}", "{memory_mb}", "{memory_kb}", "{stack_mb}", "{stack_kb}",
	"{pch_dir}", "{out}", "{work_dir}"}

// Expand returns argv with the placeholders replaced.
func Expand(argv []string, v Vars) []string {
	r := strings.NewReplacer("{src}", v.Src, "{class}", v.Class, "{memory_mb}", strconv.Itoa(v.MemoryMB),
		"{memory_kb}", strconv.Itoa(v.MemoryMB<<10), "{stack_mb}", strconv.Itoa(v.StackMB),
		"{stack_kb}", strconv.Itoa(v.StackMB<<10),
		"{pch_dir}", v.PCHDir, "{out}", v.Out, "{work_dir}", v.WorkDir)
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = r.Replace(a)
	}
	return out
}

// Set is a validated set of languages.
type Set struct {
	byID  map[string]*Language
	order []string
}

type file struct {
	Languages []*Language `yaml:"languages"`
}

// Default returns the embedded default languages.
func Default() *Set {
	s, err := Parse(defaultYAML)
	if err != nil {
		panic("lang: embedded languages.yaml: " + err.Error())
	}
	return s
}

// Load reads a languages file; an empty path means the defaults.
func Load(path string) (*Set, error) {
	if path == "" {
		return Default(), nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read languages file: %w", err)
	}
	s, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("languages file %s: %w", path, err)
	}
	return s, nil
}

// Parse decodes and validates a languages file.
func Parse(b []byte) (*Set, error) {
	var f file
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	if len(f.Languages) == 0 {
		return nil, errors.New("no languages")
	}
	s := &Set{byID: map[string]*Language{}}
	for i, l := range f.Languages {
		if err := l.validate(); err != nil {
			return nil, fmt.Errorf("languages[%d]: %w", i, err)
		}
		if _, dup := s.byID[l.ID]; dup {
			return nil, fmt.Errorf("languages[%d].id: duplicate %q", i, l.ID)
		}
		s.byID[l.ID] = l
		s.order = append(s.order, l.ID)
	}
	return s, nil
}

func (l *Language) validate() error {
	switch {
	case l.ID == "":
		return errors.New("id: empty")
	case l.SourceFile == "" || strings.ContainsAny(l.SourceFile, "/\\") || strings.HasPrefix(l.SourceFile, "."):
		return fmt.Errorf("source_file: %q is not a plain file name", l.SourceFile)
	case len(l.Run) == 0:
		return errors.New("run: empty")
	case l.Lane != job.LaneLight && l.Lane != job.LaneHeavy:
		return fmt.Errorf("lane: %q (want light or heavy)", l.Lane)
	case l.TimeFactor <= 0:
		return errors.New("time_factor: must be > 0")
	case l.MemoryFactor <= 0:
		return errors.New("memory_factor: must be > 0")
	case l.Processes <= 0:
		return errors.New("processes: must be > 0")
	case l.CompileTimeFactor < 0:
		return errors.New("compile_time_factor: must be >= 0")
	case l.PrecompiledHeader != nil && (l.PrecompiledHeader.Header == "" || len(l.PrecompiledHeader.Compile) == 0):
		return errors.New("precompiled_header: needs header and compile")
	case l.VersionRegexp != "" && len(l.Version) == 0:
		return errors.New("version_regexp: needs a version command")
	case l.CompileCache != nil && (l.CompileCache.Dir == "" || strings.ContainsAny(l.CompileCache.Dir, "/\\") ||
		l.CompileCache.Dir == ".." || l.CompileCache.WarmSource == "" || !l.Compiled()):
		return errors.New("compile_cache: needs a plain dir name, warm_source and a compile command")
	}
	if l.VersionRegexp != "" {
		re, err := regexp.Compile(l.VersionRegexp)
		if err != nil {
			return fmt.Errorf("version_regexp: %w", err)
		}
		l.versionRE = re
	}
	for _, p := range l.Packages {
		if !debianPackage.MatchString(p) {
			return fmt.Errorf("packages: %q is not a Debian package name", p)
		}
	}
	return nil
}

// Get returns the language with the given id.
func (s *Set) Get(id string) (*Language, bool) {
	l, ok := s.byID[id]
	return l, ok
}

// All returns the languages in file order.
func (s *Set) All() []*Language {
	out := make([]*Language, 0, len(s.order))
	for _, id := range s.order {
		out = append(out, s.byID[id])
	}
	return out
}

// IDs returns the language ids, sorted.
func (s *Set) IDs() []string {
	ids := append([]string(nil), s.order...)
	sort.Strings(ids)
	return ids
}

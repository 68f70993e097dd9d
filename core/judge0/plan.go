package judge0

import (
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"strconv"

	"oj/core/job"
)

// Plan is a validated Judge0 submission translated onto oj's run: the oj language, the
// source and the run's spec (one input: Judge0 has one stdin per submission).
type Plan struct {
	Language Language
	Source   string
	Spec     job.RunSpec
	Callback string
}

// Bounds are oj's own bounds a submission is held to besides Judge0's limits.
type Bounds struct {
	MaxSourceBytes int
	MaxStdinBytes  int
	OutputBytes    int
}

// Validate checks req as Judge0's model validates a submission, with oj's differences
// (network never, compiler options from an allow-list, arguments split without a
// shell, additional files checked like a package), and translates it. The messages are
// Judge0's where Judge0 has one.
func Validate(req Request, langs *Languages, l Limits, b Bounds, errs *Errors) Plan {
	var p Plan
	if req.SourceCode == nil || *req.SourceCode == "" {
		errs.Add("source_code", "can't be blank")
	} else if len(*req.SourceCode) > b.MaxSourceBytes {
		errs.Add("source_code", fmt.Sprintf("is too long (maximum is %d bytes, api.limits.max_source_bytes)", b.MaxSourceBytes))
	}
	if req.LanguageID == nil {
		errs.Add("language_id", "can't be blank")
	} else if lg, ok := langs.Get(*req.LanguageID); !ok {
		errs.Add("language_id", fmt.Sprintf("language with id %d doesn't exist", *req.LanguageID))
	} else {
		p.Language = lg
	}
	e := Echo{ExpectedOutput: req.ExpectedOutput, CompilerOptions: req.CompilerOptions,
		CommandLineArguments: req.CommandLineArguments, CallbackURL: req.CallbackURL}
	if req.LanguageID != nil {
		e.LanguageID = *req.LanguageID
	}
	e.CPUTimeLimit = floatLimit(errs, "cpu_time_limit", req.CPUTimeLimit, l.CPUTimeLimit, l.MaxCPUTimeLimit)
	e.CPUExtraTime = floatLimit(errs, "cpu_extra_time", req.CPUExtraTime, l.CPUExtraTime, l.MaxCPUExtraTime)
	e.WallTimeLimit = floatLimit(errs, "wall_time_limit", req.WallTimeLimit, l.WallTimeLimit, l.MaxWallTimeLimit)
	e.MemoryLimit = intLimit(errs, "memory_limit", req.MemoryLimit, l.MemoryLimit, l.MaxMemoryLimit)
	e.StackLimit = intLimit(errs, "stack_limit", req.StackLimit, l.StackLimit, l.MaxStackLimit)
	e.Processes = intLimit(errs, "max_processes_and_or_threads", req.Processes, l.Processes, l.MaxProcesses)
	e.MaxFileSize = intLimit(errs, "max_file_size", req.MaxFileSize, l.MaxFileSize, l.MaxMaxFileSize)
	e.NumberOfRuns = intLimit(errs, "number_of_runs", req.NumberOfRuns, l.NumberOfRuns, l.MaxNumberOfRuns)
	for _, f := range []struct {
		name string
		v    *bool
	}{{"enable_per_process_and_thread_time_limit", req.PerProcessTimeLimit},
		{"enable_per_process_and_thread_memory_limit", req.PerProcessMemoryLimit}} {
		if f.v != nil && *f.v {
			errs.Add(f.name, "this option cannot be enabled")
		}
	}
	if req.EnableNetwork != nil && *req.EnableNetwork {
		errs.Add("enable_network", "enabling network is not allowed (oj never gives a program the network)")
	}
	if req.RedirectStderr != nil {
		e.RedirectStderr = *req.RedirectStderr
	}
	stdin := ""
	if req.Stdin != nil {
		stdin = *req.Stdin
	}
	if len(stdin) > b.MaxStdinBytes {
		errs.Add("stdin", fmt.Sprintf("is too long (maximum is %d bytes, runs.max_stdin_bytes)", b.MaxStdinBytes))
	}
	args := splitField(errs, "command_line_arguments", req.CommandLineArguments)
	copts := splitField(errs, "compiler_options", req.CompilerOptions)
	if len(copts) > 0 && p.Language.OJ != nil {
		if !p.Language.OJ.Compiled() {
			errs.Add("compiler_options", "setting compiler options is only allowed for compiled languages")
		} else if err := CompilerOptions(p.Language.OJ.ID, copts); err != nil {
			errs.Add("compiler_options", err.Error())
		}
	}
	if req.CallbackURL != nil && *req.CallbackURL != "" {
		u, err := url.Parse(*req.CallbackURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs.Add("callback_url", "must be an http or https URL")
		} else {
			p.Callback = *req.CallbackURL
		}
	}
	var files []byte
	if req.AdditionalFiles != nil && *req.AdditionalFiles != "" {
		files = []byte(*req.AdditionalFiles)
		if err := CheckZip(files, l.MaxExtractSize*1024); err != nil {
			errs.Add("additional_files", err.Error())
		}
	}
	if !errs.Empty() {
		return Plan{}
	}
	face, _ := json.Marshal(e)
	p.Source = *req.SourceCode
	p.Spec = job.RunSpec{
		Face:   face,
		Stdins: []string{stdin},
		TimeMS: ms(e.CPUTimeLimit), ExtraTimeMS: ms(e.CPUExtraTime), WallMS: ms(e.WallTimeLimit),
		MemoryMB: (e.MemoryLimit + 1023) / 1024, StackKB: e.StackLimit, Processes: e.Processes,
		MaxFileKB: e.MaxFileSize, OutputBytes: b.OutputBytes, CompilerArgs: copts, Args: args, Files: files,
		RedirectStderr: e.RedirectStderr, Runs: e.NumberOfRuns,
	}
	return p
}

func ms(sec float64) int { return int(math.Round(sec * 1000)) }

// splitField splits one of the two command strings, or records why it cannot.
func splitField(errs *Errors, name string, v *string) []string {
	if v == nil {
		return nil
	}
	if len(*v) > MaxArgsLength {
		errs.Add(name, fmt.Sprintf("is too long (maximum is %d characters)", MaxArgsLength))
		return nil
	}
	words, err := SplitArgs(*v)
	if err != nil {
		errs.Add(name, err.Error())
	}
	return words
}

// floatLimit is a limit in seconds: the default when not given, else more than zero and
// at most max (Judge0's numericality messages).
func floatLimit(errs *Errors, name string, v *float64, def, max float64) float64 {
	if v == nil {
		return def
	}
	switch {
	case *v <= 0:
		errs.Add(name, "must be greater than 0")
	case *v > max:
		errs.Add(name, "must be less than or equal to "+decimal(max))
	}
	return *v
}

func intLimit(errs *Errors, name string, v *int, def, max int) int {
	if v == nil {
		return def
	}
	switch {
	case *v <= 0:
		errs.Add(name, "must be greater than 0")
	case *v > max:
		errs.Add(name, "must be less than or equal to "+strconv.Itoa(max))
	}
	return *v
}

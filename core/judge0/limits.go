package judge0

import (
	"math"

	"oj/core/job"
)

// Limits are the defaults and maxima of a submission's limits, as config_info shows
// them and as POST /submissions enforces them (a value over its maximum is a 422, as in
// Judge0). The CPU time and memory maxima are oj's own run maxima (runs.max_time,
// runs.max_memory), so the face never promises more than the Run lane gives; the rest
// are Judge0's stock values.
type Limits struct {
	CPUTimeLimit, MaxCPUTimeLimit   float64 // seconds
	CPUExtraTime, MaxCPUExtraTime   float64 // seconds
	WallTimeLimit, MaxWallTimeLimit float64 // seconds
	MemoryLimit, MaxMemoryLimit     int     // KB
	StackLimit, MaxStackLimit       int     // KB
	Processes, MaxProcesses         int
	MaxFileSize, MaxMaxFileSize     int // KB
	NumberOfRuns, MaxNumberOfRuns   int
	// MaxExtractSize bounds additional_files once unzipped (KB).
	MaxExtractSize int
	// MaxBatch is the most submissions of one batch, on POST and GET.
	MaxBatch int
	// MaxQueueSize is what config_info reports as max_queue_size: oj's cap on waiting
	// runs (api.limits.run_max_queued; 0 when it has none).
	MaxQueueSize int
}

// NewLimits are Judge0 CE's stock limits held to oj's run maxima.
func NewLimits(runs job.RunsConfig, maxQueued int) Limits {
	maxCPU := runs.MaxTime.Seconds()
	maxMemKB := runs.MaxMemoryMB * 1024
	l := Limits{
		CPUTimeLimit: math.Min(5, maxCPU), MaxCPUTimeLimit: maxCPU,
		CPUExtraTime: math.Min(1, maxCPU), MaxCPUExtraTime: math.Min(5, maxCPU),
		WallTimeLimit: math.Min(10, 3*maxCPU), MaxWallTimeLimit: math.Min(20, 3*maxCPU+1),
		MemoryLimit: min(128000, maxMemKB), MaxMemoryLimit: maxMemKB,
		StackLimit: 64000, MaxStackLimit: 128000,
		Processes: 60, MaxProcesses: 120,
		MaxFileSize: 1024, MaxMaxFileSize: 4096,
		NumberOfRuns: 1, MaxNumberOfRuns: 20,
		MaxExtractSize: 10240, MaxBatch: 20, MaxQueueSize: maxQueued,
	}
	return l
}

// ConfigInfo is GET /config_info: Judge0's keys, with what oj does.
func (l Limits) ConfigInfo(waitEnabled bool) Ordered {
	return Ordered{
		{"maintenance_mode", false},
		{"enable_wait_result", waitEnabled},
		{"enable_compiler_options", true},
		{"allowed_languages_for_compile_options", []string{}},
		{"enable_command_line_arguments", true},
		{"enable_submission_delete", false},
		{"enable_callbacks", true},
		{"callbacks_max_tries", nil},
		{"callbacks_timeout", 10.0},
		{"enable_additional_files", true},
		{"max_queue_size", l.MaxQueueSize},
		{"cpu_time_limit", l.CPUTimeLimit},
		{"max_cpu_time_limit", l.MaxCPUTimeLimit},
		{"cpu_extra_time", l.CPUExtraTime},
		{"max_cpu_extra_time", l.MaxCPUExtraTime},
		{"wall_time_limit", l.WallTimeLimit},
		{"max_wall_time_limit", l.MaxWallTimeLimit},
		{"memory_limit", l.MemoryLimit},
		{"max_memory_limit", l.MaxMemoryLimit},
		{"stack_limit", l.StackLimit},
		{"max_stack_limit", l.MaxStackLimit},
		{"max_processes_and_or_threads", l.Processes},
		{"max_max_processes_and_or_threads", l.MaxProcesses},
		{"enable_per_process_and_thread_time_limit", false},
		{"allow_enable_per_process_and_thread_time_limit", false},
		{"enable_per_process_and_thread_memory_limit", false},
		{"allow_enable_per_process_and_thread_memory_limit", false},
		{"max_file_size", l.MaxFileSize},
		{"max_max_file_size", l.MaxMaxFileSize},
		{"number_of_runs", l.NumberOfRuns},
		{"max_number_of_runs", l.MaxNumberOfRuns},
		{"redirect_stderr_to_stdout", false},
		{"max_extract_size", l.MaxExtractSize},
		{"enable_batched_submissions", true},
		{"max_submission_batch_size", l.MaxBatch},
		{"submission_cache_duration", 0.0},
		{"use_docs_as_homepage", false},
		{"allow_enable_network", false},
		{"enable_network", false},
	}
}

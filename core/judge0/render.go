package judge0

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"oj/core/store"
)

// Echo is what the face keeps with a run (job.RunSpec.Face) to show it back in Judge0's
// terms: the Judge0 language id asked for, the expected output, and the request's
// limits and strings as given (defaults filled in).
type Echo struct {
	LanguageID           int     `json:"language_id"`
	ExpectedOutput       *string `json:"expected_output,omitempty"`
	CPUTimeLimit         float64 `json:"cpu_time_limit"`
	CPUExtraTime         float64 `json:"cpu_extra_time"`
	WallTimeLimit        float64 `json:"wall_time_limit"`
	MemoryLimit          int     `json:"memory_limit"`
	StackLimit           int     `json:"stack_limit"`
	Processes            int     `json:"max_processes_and_or_threads"`
	MaxFileSize          int     `json:"max_file_size"`
	NumberOfRuns         int     `json:"number_of_runs"`
	RedirectStderr       bool    `json:"redirect_stderr_to_stdout"`
	CompilerOptions      *string `json:"compiler_options,omitempty"`
	CommandLineArguments *string `json:"command_line_arguments,omitempty"`
	CallbackURL          *string `json:"callback_url,omitempty"`
}

// EchoOf reads the echo stored with a run; a run made elsewhere has none (zero Echo).
func EchoOf(s *store.Submission) Echo {
	var e Echo
	if s.Run != nil && len(s.Run.Face) > 0 {
		_ = json.Unmarshal(s.Run.Face, &e)
	}
	return e
}

// Fields are the attributes of a Judge0 submission, in its serializer's order.
var Fields = []string{"source_code", "language_id", "stdin", "expected_output", "stdout", "status_id",
	"created_at", "finished_at", "time", "memory", "stderr", "token", "number_of_runs", "cpu_time_limit",
	"cpu_extra_time", "wall_time_limit", "memory_limit", "stack_limit", "max_processes_and_or_threads",
	"enable_per_process_and_thread_time_limit", "enable_per_process_and_thread_memory_limit", "max_file_size",
	"compile_output", "exit_code", "exit_signal", "message", "wall_time", "compiler_options",
	"command_line_arguments", "redirect_stderr_to_stdout", "callback_url", "additional_files", "enable_network",
	"status", "language"}

// DefaultFields are what a submission shows without ?fields.
var DefaultFields = []string{"stdout", "time", "memory", "stderr", "token", "compile_output", "message", "status"}

// textFields are base64-encoded in an answer when base64_encoded=true.
var textFields = map[string]bool{"source_code": true, "stdin": true, "expected_output": true, "stdout": true,
	"stderr": true, "compile_output": true, "message": true}

// ParseFields reads ?fields: empty is the default set, "*" every field; a name Judge0
// does not know is an error naming them all ("invalid fields: [a, b]").
func ParseFields(q string) ([]string, error) {
	if strings.TrimSpace(q) == "" {
		return DefaultFields, nil
	}
	if strings.TrimSpace(q) == "*" {
		return Fields, nil
	}
	known := map[string]bool{}
	for _, f := range Fields {
		known[f] = true
	}
	asked := map[string]bool{}
	var bad []string
	for _, f := range strings.Split(q, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if !known[f] {
			bad = append(bad, f)
		}
		asked[f] = true
	}
	if len(bad) > 0 {
		return nil, fmt.Errorf("invalid fields: [%s]", strings.Join(bad, ", "))
	}
	var out []string
	for _, f := range Fields { // the serializer's order, whatever the query's
		if asked[f] {
			out = append(out, f)
		}
	}
	return out, nil
}

// ErrNotUTF8 is a text field that is not UTF-8, asked for without base64.
var ErrNotUTF8 = errors.New("some attributes for this submission cannot be converted to UTF-8, use base64_encoded=true query parameter")

// Render is the stored run s as a Judge0 submission with the given fields; token is its
// Judge0 token and lang the language behind its id (for "language"). With b64 the text
// fields are base64; without, a text field that is not UTF-8 is ErrNotUTF8.
func Render(s *store.Submission, token string, langs *Languages, fields []string, b64 bool) (Ordered, error) {
	e := EchoOf(s)
	o := outcomeOf(s, e)
	out := make(Ordered, 0, len(fields))
	for _, f := range fields {
		v := fieldValue(f, s, e, o, token, langs)
		if text, ok := v.(*string); ok && textFields[f] && text != nil {
			switch {
			case b64:
				enc := Encode(*text)
				v = &enc
			case !utf8.ValidString(*text):
				return nil, ErrNotUTF8
			}
		}
		out = append(out, KV{f, v})
	}
	return out, nil
}

func fieldValue(f string, s *store.Submission, e Echo, o outcome, token string, langs *Languages) any {
	switch f {
	case "source_code":
		return &s.Source
	case "language_id":
		return e.LanguageID
	case "stdin":
		if s.Run != nil && len(s.Run.Stdins) > 0 {
			return &s.Run.Stdins[0]
		}
		return (*string)(nil)
	case "expected_output":
		return e.ExpectedOutput
	case "stdout":
		return o.stdout
	case "stderr":
		return o.stderr
	case "status_id":
		return o.status.ID
	case "status":
		return o.status
	case "created_at":
		return s.CreatedAt.UTC().Format(timeLayout)
	case "finished_at":
		if s.FinishedAt == nil {
			return nil
		}
		return s.FinishedAt.UTC().Format(timeLayout)
	case "time":
		return o.time
	case "wall_time":
		return o.wallTime
	case "memory":
		return o.memory
	case "token":
		return token
	case "number_of_runs":
		return e.NumberOfRuns
	case "cpu_time_limit":
		return decimal(e.CPUTimeLimit)
	case "cpu_extra_time":
		return decimal(e.CPUExtraTime)
	case "wall_time_limit":
		return decimal(e.WallTimeLimit)
	case "memory_limit":
		return e.MemoryLimit
	case "stack_limit":
		return e.StackLimit
	case "max_processes_and_or_threads":
		return e.Processes
	case "enable_per_process_and_thread_time_limit", "enable_per_process_and_thread_memory_limit", "enable_network":
		return false
	case "max_file_size":
		return e.MaxFileSize
	case "compile_output":
		return o.compileOutput
	case "exit_code":
		return o.exitCode
	case "exit_signal":
		return o.exitSignal
	case "message":
		return o.message
	case "compiler_options":
		return e.CompilerOptions
	case "command_line_arguments":
		return e.CommandLineArguments
	case "redirect_stderr_to_stdout":
		return e.RedirectStderr
	case "callback_url":
		return e.CallbackURL
	case "additional_files":
		// Always base64, as Judge0 shows it: a zip is never text.
		if s.Run == nil || len(s.Run.Files) == 0 {
			return nil
		}
		return Encode(string(s.Run.Files))
	case "language":
		l, ok := langs.Get(e.LanguageID)
		if !ok {
			return LanguageBrief{ID: e.LanguageID, Name: s.Language}
		}
		return LanguageBrief{ID: l.ID, Name: l.Name}
	}
	return nil
}

// timeLayout is how Rails writes a timestamp in JSON (milliseconds, Z).
const timeLayout = "2006-01-02T15:04:05.000Z"

// decimal is a number of seconds as Judge0 writes a decimal column: a string, with at
// least one digit after the point ("5.0", "0.016").
func decimal(sec float64) string {
	s := strconv.FormatFloat(sec, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// seconds is a duration in milliseconds as a Judge0 decimal.
func seconds(ms float64) *string {
	s := decimal(ms / 1000)
	return &s
}

// CallbackBody is what Judge0 PUTs to a submission's callback_url when it ends: the
// default fields, base64-encoded (whatever the request said), as JSON.
func CallbackBody(s *store.Submission, langs *Languages) (contentType string, body []byte, err error) {
	o, err := Render(s, s.PublicToken, langs, DefaultFields, true)
	if err != nil {
		return "", nil, err
	}
	body, err = o.MarshalJSON()
	return "application/json", body, err
}

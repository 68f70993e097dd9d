package judge0

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Request is a Judge0 submission as a client posts it, fields decoded (base64 already
// undone when the request said base64_encoded=true). A nil pointer is a field left out
// or null: Judge0's default applies.
type Request struct {
	SourceCode            *string
	LanguageID            *int
	Stdin                 *string
	ExpectedOutput        *string
	CPUTimeLimit          *float64
	CPUExtraTime          *float64
	WallTimeLimit         *float64
	MemoryLimit           *int
	StackLimit            *int
	Processes             *int
	PerProcessTimeLimit   *bool
	PerProcessMemoryLimit *bool
	MaxFileSize           *int
	NumberOfRuns          *int
	RedirectStderr        *bool
	EnableNetwork         *bool
	CompilerOptions       *string
	CommandLineArguments  *string
	CallbackURL           *string
	AdditionalFiles       *string // the zip's bytes
}

// Errors is a 422 body: each field with its messages, in the order found.
type Errors struct {
	order []string
	msgs  map[string][]string
}

// Add records a message for field.
func (e *Errors) Add(field, msg string) {
	if e.msgs == nil {
		e.msgs = map[string][]string{}
	}
	if _, ok := e.msgs[field]; !ok {
		e.order = append(e.order, field)
	}
	e.msgs[field] = append(e.msgs[field], msg)
}

// Empty reports whether nothing was added.
func (e *Errors) Empty() bool { return len(e.order) == 0 }

// Fields are the fields with messages, in order.
func (e *Errors) Fields() []string { return e.order }

// MarshalJSON writes {field: [messages]}.
func (e *Errors) MarshalJSON() ([]byte, error) {
	o := make(Ordered, 0, len(e.order))
	for _, f := range e.order {
		o = append(o, KV{f, e.msgs[f]})
	}
	return o.MarshalJSON()
}

// ParseRequest reads one submission object. Like Judge0 (Rails' permitted parameters),
// it ignores keys it does not know and takes numbers and booleans also as strings; a
// value of the wrong kind is a message on its field. b64 says the text fields are
// base64.
func ParseRequest(raw json.RawMessage, b64 bool, errs *Errors) Request {
	var m map[string]json.RawMessage
	var req Request
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil || m == nil {
		errs.Add("submission", "must be a JSON object")
		return req
	}
	text := func(k string, decode bool) *string {
		v, ok := m[k]
		if !ok {
			return nil
		}
		var s *string
		if err := json.Unmarshal(v, &s); err != nil {
			// Rails turns a number into its text.
			var n json.Number
			if json.Unmarshal(v, &n) != nil {
				errs.Add(k, "must be a string")
				return nil
			}
			t := n.String()
			s = &t
		}
		if s != nil && decode {
			d := Decode(*s)
			s = &d
		}
		return s
	}
	req.SourceCode = text("source_code", b64)
	req.Stdin = text("stdin", b64)
	req.ExpectedOutput = text("expected_output", b64)
	req.CompilerOptions = text("compiler_options", false)
	req.CommandLineArguments = text("command_line_arguments", false)
	req.CallbackURL = text("callback_url", false)
	req.AdditionalFiles = text("additional_files", true) // always base64, as in Judge0
	req.LanguageID = intField(m, "language_id", errs)
	req.CPUTimeLimit = floatField(m, "cpu_time_limit", errs)
	req.CPUExtraTime = floatField(m, "cpu_extra_time", errs)
	req.WallTimeLimit = floatField(m, "wall_time_limit", errs)
	req.MemoryLimit = intField(m, "memory_limit", errs)
	req.StackLimit = intField(m, "stack_limit", errs)
	req.Processes = intField(m, "max_processes_and_or_threads", errs)
	req.MaxFileSize = intField(m, "max_file_size", errs)
	req.NumberOfRuns = intField(m, "number_of_runs", errs)
	req.PerProcessTimeLimit = boolField(m, "enable_per_process_and_thread_time_limit", errs)
	req.PerProcessMemoryLimit = boolField(m, "enable_per_process_and_thread_memory_limit", errs)
	req.RedirectStderr = boolField(m, "redirect_stderr_to_stdout", errs)
	req.EnableNetwork = boolField(m, "enable_network", errs)
	return req
}

// scalar is a JSON value's text when it is a number or a string; ok false for null.
func scalar(v json.RawMessage) (string, bool, error) {
	var x any
	d := json.NewDecoder(bytes.NewReader(v))
	d.UseNumber()
	if err := d.Decode(&x); err != nil {
		return "", false, err
	}
	switch t := x.(type) {
	case nil:
		return "", false, nil
	case json.Number:
		return t.String(), true, nil
	case string:
		return strings.TrimSpace(t), true, nil
	case bool:
		return strconv.FormatBool(t), true, nil
	}
	return "", true, fmt.Errorf("not a scalar")
}

func floatField(m map[string]json.RawMessage, k string, errs *Errors) *float64 {
	v, ok := m[k]
	if !ok {
		return nil
	}
	s, ok, err := scalar(v)
	if !ok && err == nil || s == "" && err == nil {
		return nil
	}
	f, perr := strconv.ParseFloat(s, 64)
	if err != nil || perr != nil {
		errs.Add(k, "is not a number")
		return nil
	}
	return &f
}

func intField(m map[string]json.RawMessage, k string, errs *Errors) *int {
	f := floatField(m, k, errs)
	if f == nil {
		return nil
	}
	if *f != float64(int(*f)) {
		errs.Add(k, "must be an integer")
		return nil
	}
	n := int(*f)
	return &n
}

func boolField(m map[string]json.RawMessage, k string, errs *Errors) *bool {
	v, ok := m[k]
	if !ok {
		return nil
	}
	s, ok, err := scalar(v)
	if !ok && err == nil {
		return nil
	}
	// Rails' boolean casting: "1", "t", "true", "on" (any case) are true, "0", "f",
	// "false", "off" false.
	switch strings.ToLower(s) {
	case "true", "1", "t", "on":
		b := true
		return &b
	case "false", "0", "f", "off", "":
		b := false
		return &b
	}
	errs.Add(k, "is not a boolean")
	return nil
}

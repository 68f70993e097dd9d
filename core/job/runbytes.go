package job

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// A run's inputs and outputs are anybody's bytes: a program may write NUL and invalid
// UTF-8, and a caller may send them (a Judge0 client sends base64). A JSON string
// cannot carry them (encoding/json replaces invalid UTF-8, and PostgreSQL's jsonb
// refuses \u0000), so RunSpec and RunResult encode a text that is not plain UTF-8 as
// base64 in a sibling field ("stdout_b64" beside "stdout"), and decode either form back
// to the same bytes. Plain text keeps its readable form.

// plainText reports whether s survives a JSON string and jsonb unchanged.
func plainText(s string) bool { return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0 }

type runResultFields RunResult

type runResultJSON struct {
	runResultFields
	StdoutB64 []byte `json:"stdout_b64,omitempty"`
	StderrB64 []byte `json:"stderr_b64,omitempty"`
}

// MarshalJSON encodes r, its outputs byte for byte (see plainText).
func (r RunResult) MarshalJSON() ([]byte, error) {
	j := runResultJSON{runResultFields: runResultFields(r)}
	if !plainText(r.Stdout) {
		j.StdoutB64, j.Stdout = []byte(r.Stdout), ""
	}
	if !plainText(r.Stderr) {
		j.StderrB64, j.Stderr = []byte(r.Stderr), ""
	}
	return json.Marshal(j)
}

// UnmarshalJSON decodes what MarshalJSON wrote.
func (r *RunResult) UnmarshalJSON(b []byte) error {
	var j runResultJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*r = RunResult(j.runResultFields)
	if j.StdoutB64 != nil {
		r.Stdout = string(j.StdoutB64)
	}
	if j.StderrB64 != nil {
		r.Stderr = string(j.StderrB64)
	}
	return nil
}

type runSpecFields RunSpec

type runSpecJSON struct {
	runSpecFields
	StdinsB64 [][]byte `json:"stdins_b64,omitempty"`
}

// MarshalJSON encodes s, its inputs byte for byte: all of them in base64 when one is
// not plain text.
func (s RunSpec) MarshalJSON() ([]byte, error) {
	j := runSpecJSON{runSpecFields: runSpecFields(s)}
	for _, in := range s.Stdins {
		if plainText(in) {
			continue
		}
		j.StdinsB64, j.Stdins = make([][]byte, len(s.Stdins)), nil
		for i, in := range s.Stdins {
			j.StdinsB64[i] = []byte(in)
		}
		break
	}
	return json.Marshal(j)
}

// UnmarshalJSON decodes what MarshalJSON wrote.
func (s *RunSpec) UnmarshalJSON(b []byte) error {
	var j runSpecJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*s = RunSpec(j.runSpecFields)
	if j.StdinsB64 != nil {
		s.Stdins = make([]string, len(j.StdinsB64))
		for i, in := range j.StdinsB64 {
			s.Stdins[i] = string(in)
		}
	}
	return nil
}

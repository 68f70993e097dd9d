package job

import (
	"encoding/json"
	"strings"
	"testing"
)

// Inputs and outputs survive JSON byte for byte; plain text stays readable text.
func TestRunBytesSurviveJSON(t *testing.T) {
	odd := "\x00\xff\xfe\x80"
	r := RunResult{Index: 1, Status: RunOK, Stdout: odd, Stderr: "plain", TimeMS: 5}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"stderr":"plain"`) || !strings.Contains(string(b), `"stdout_b64":"AP/+gA=="`) {
		t.Fatalf("encoded %s", b)
	}
	var back RunResult
	if err := json.Unmarshal(b, &back); err != nil || back != r {
		t.Fatalf("decoded %+v %v", back, err)
	}
	s := RunSpec{Stdins: []string{"x", odd, ""}, TimeMS: 1000, Files: []byte{1}, Args: []string{"a"}}
	if b, err = json.Marshal(s); err != nil {
		t.Fatal(err)
	}
	var spec RunSpec
	if err := json.Unmarshal(b, &spec); err != nil || len(spec.Stdins) != 3 || spec.Stdins[1] != odd || spec.Stdins[2] != "" ||
		spec.TimeMS != 1000 || spec.Args[0] != "a" {
		t.Fatalf("spec %s decoded %+v %v", b, spec, err)
	}
	// What was stored before the byte-exact form decodes as it did.
	if err := json.Unmarshal([]byte(`{"stdins":["1\n"],"time_ms":5,"memory_mb":1,"output_bytes":2}`), &spec); err != nil ||
		spec.Stdins[0] != "1\n" || spec.Args != nil {
		t.Fatalf("an old spec: %+v %v", spec, err)
	}
}

package e2e_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"oj/core/dispatch"
	"oj/core/judge/lang"
	judge0pkg "oj/core/judge0"
	"oj/core/store"
	"oj/core/webhook"
)

// TestJudge0 holds the Judge0 face to Judge0's shapes on one real system (the sandbox,
// PostgreSQL, Redis, the relay, a worker and a dispatcher that renders Judge0 callbacks).
func TestJudge0(t *testing.T) {
	secret, err := webhook.NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	s := newSystemWith(t, 2, func(c *dispatch.Config) {
		c.Webhooks.CallbackSecret = secret
		langs := judge0pkg.NewLanguages(lang.Default(), nil)
		c.RunCallbackBody = func(_ context.Context, run *store.Submission) (string, []byte, error) {
			return judge0pkg.CallbackBody(run, langs)
		}
	})
	for _, c := range []struct {
		name string
		fn   func(*testing.T, *system)
	}{
		{"Refusals", judge0Refusals}, {"AuthAndCORS", judge0AuthAndCORS}, {"Info", judge0Info},
		{"Verdicts", judge0Verdicts}, {"Base64", judge0Base64}, {"Batch", judge0Batch},
		{"Options", judge0Options}, {"Callback", func(t *testing.T, s *system) { judge0Callback(t, s, secret) }},
		{"Client", judge0Client},
	} {
		t.Run(c.name, func(t *testing.T) { c.fn(t, s) })
	}
}

// zipOf is a zip of name → content.
func zipOf(t *testing.T, files map[string]string) string {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for name, body := range files {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = w.Write([]byte(body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

// The options that change how a program is built and run: arguments split without a
// shell, compiler options from the allow-list, additional files beside the source,
// stderr into stdout, and number_of_runs.
func judge0Options(t *testing.T, s *system) {
	c := judge0On(t, s, nil)
	args := c.create("", map[string]any{"language_id": 71, "source_code": "import sys\nprint(sys.argv[1:])",
		"command_line_arguments": `alpha 'b c' "d;e" $HOME x>y`})
	if m := c.wait(args, ""); statusID(m) != 3 || m["stdout"] != "['alpha', 'b c', 'de', 'HOME', 'xy']\n" {
		t.Errorf("arguments: %v", m)
	}
	opts := c.create("", map[string]any{"language_id": 54, "compiler_options": "-DFOO=41 -O2",
		"source_code": "#include <cstdio>\nint main(){ printf(\"%d\\n\", FOO + 1); }\n"})
	if m := c.wait(opts, ""); statusID(m) != 3 || m["stdout"] != "42\n" {
		t.Errorf("compiler options: %v", m)
	}
	// A header included at compile time, a file read at run time.
	files := c.create("", map[string]any{"language_id": 54,
		"source_code":      "#include <cstdio>\n#include \"helper.h\"\nint main(){ char w[16]={0}; FILE *f=fopen(\"data.txt\",\"r\"); if(!f||fscanf(f,\"%15s\",w)!=1) return 1; printf(\"%d %s\\n\", X, w); }\n",
		"additional_files": zipOf(t, map[string]string{"helper.h": "#define X 7\n", "data.txt": "seven"})})
	if m := c.wait(files, ""); statusID(m) != 3 || m["stdout"] != "7 seven\n" {
		t.Errorf("additional files: %v", m)
	}
	redirect := c.create("", map[string]any{"language_id": 71, "redirect_stderr_to_stdout": true,
		"source_code": "import sys\nprint('out', flush=True)\nprint('err', file=sys.stderr, flush=True)"})
	if m := c.wait(redirect, ""); m["stdout"] != "out\nerr\n" || m["stderr"] != nil {
		t.Errorf("stderr into stdout: %v", m)
	}
	runs := c.create("", map[string]any{"language_id": 71, "source_code": "print(1)", "number_of_runs": 3})
	if m := c.wait(runs, "?fields=status_id,number_of_runs,stdout"); statusID(m) != 3 || m["number_of_runs"].(float64) != 3 || m["stdout"] != "1\n" {
		t.Errorf("number_of_runs: %v", m)
	}
}

// A callback: PUT to the callback URL when the submission ends, Judge0's default fields
// in base64, signed as Standard Webhooks with webhooks.callback_secret.
func judge0Callback(t *testing.T, s *system, secret string) {
	c := judge0On(t, s, nil)
	type call struct {
		method string
		header http.Header
		body   []byte
	}
	got := make(chan call, 4)
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- call{r.Method, r.Header.Clone(), b}
	}))
	defer rcv.Close()
	token := c.create("", map[string]any{"language_id": 71, "source_code": j0PyAB, "stdin": "1 2",
		"expected_output": "3", "callback_url": rcv.URL + "/judge0-callback"})
	var cl call
	select {
	case cl = <-got:
	case <-time.After(2 * time.Minute):
		t.Fatal("no callback within 2 minutes")
	}
	m := object(t, cl.body)
	if cl.method != http.MethodPut || m["token"] != token || statusID(m) != 3 || judge0pkg.Decode(m["stdout"].(string)) != "3\n" || len(m) != 8 {
		t.Fatalf("callback: %s %s", cl.method, cl.body)
	}
	if ct := cl.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("callback content type %q", ct)
	}
	id, ts := cl.header.Get("webhook-id"), cl.header.Get("webhook-timestamp")
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		t.Fatalf("webhook-timestamp %q", ts)
	}
	want, err := webhook.Sign([]string{secret}, id, sec, cl.body)
	if err != nil || id == "" || cl.header.Get("webhook-signature") != want {
		t.Errorf("signature %q, want %q (%v)", cl.header.Get("webhook-signature"), want, err)
	}
}

// A Judge0 client that nobody here wrote (scripts/judge0-client-check.sh installs it
// from npm into a temporary directory), run unchanged but for its URL and token. It is
// skipped, with the script's reason, only when it cannot be had.
func judge0Client(t *testing.T, s *system) {
	c := judge0On(t, s, nil)
	out, err := exec.Command("bash", "../../scripts/judge0-client-check.sh", c.base, c.user).CombinedOutput()
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 77 {
		t.Skip(lines[len(lines)-1])
	}
	if err != nil {
		t.Fatalf("judge0-client-check.sh: %v\n%s", err, out)
	}
	t.Log(lines[len(lines)-1])
}

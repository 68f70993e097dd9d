package e2e_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"oj/core/job"
	"oj/core/store"
	"oj/core/wire"
)

// callbackSecret signs the run callbacks of every system of these tests.
const callbackSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

// optionsProgram prints its arguments and X (a compiler argument), writes its input back
// byte for byte, then a line on stderr.
const optionsProgram = `#include <stdio.h>
int main(int argc, char **argv) {
	for (int i = 1; i < argc; i++) printf("[%s]", argv[i]);
	printf(" X=%d\n", X);
	int c;
	while ((c = getchar()) != EOF) putchar(c);
	fflush(stdout);
	fputs("on stderr\n", stderr);
	return 0;
}
`

// A run with options and a callback goes the whole way: row and outbox, Redis, a worker
// whose judge applies the options in the sandbox, the fenced write-back, and the
// dispatcher's signed PUT of the result to the callback URL (after a 500, again), the
// program's bytes exact at every step, and the run found by its public token.
func TestRunWithOptionsAndCallbackEndToEnd(t *testing.T) {
	s := newSystem(t, 1)
	type hit struct {
		method, id, ts, sig string
		body                []byte
	}
	hits := make(chan hit, 4)
	var tries atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		hits <- hit{r.Method, r.Header.Get("webhook-id"), r.Header.Get("webhook-timestamp"), r.Header.Get("webhook-signature"), b}
		if tries.Add(1) == 1 {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	defer srv.Close()

	in := "bytes:\x00\xff\xfe\x80\n"
	spec, _ := job.DefaultRunsConfig().Spec([]string{in}, 2000, 128)
	spec.Args, spec.CompilerArgs, spec.RedirectStderr, spec.Runs = []string{"a b", "$(id)"}, []string{"-DX=7"}, true, 2
	token := "e2e-public-token-" + strings.Repeat("7", 16)
	id, err := store.SubmitRun(context.Background(), s.db, store.NewRun{Language: "c11", Source: optionsProgram, Spec: spec,
		TraceID: "e2e-run-options", PublicToken: token, Callback: srv.URL + "/cb", Origin: store.OriginJudge0})
	if err != nil {
		t.Fatal(err)
	}
	run := s.wait(t, id)
	want := "[a b][$(id)] X=7\n" + in + "on stderr\n"
	if run.Verdict != "" || len(run.RunResults) != 1 || run.RunResults[0].Status != job.RunOK ||
		run.RunResults[0].Stdout != want || run.RunResults[0].Stderr != "" {
		t.Fatalf("run: %+v (compile output %q)", run.RunResults, run.CompileOutput)
	}
	byToken, err := store.GetRunByPublicToken(context.Background(), s.db, token)
	if err != nil || byToken.ID != id || byToken.RunResults[0].Stdout != want {
		t.Fatalf("by token: %+v %v", byToken, err)
	}

	var got []hit
	deadline := time.After(60 * time.Second) // the retry comes webhooks.schedule's first step (5 s ± 20 %) later
	for len(got) < 2 {
		select {
		case h := <-hits:
			got = append(got, h)
		case <-deadline:
			t.Fatalf("%d callbacks received in 60 s, want 2", len(got))
		}
	}
	key, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(callbackSecret, "whsec_"))
	for _, h := range got {
		mac := hmac.New(sha256.New, key)
		mac.Write([]byte(h.id + "." + h.ts + "."))
		mac.Write(h.body)
		if h.method != http.MethodPut || h.sig != "v1,"+base64.StdEncoding.EncodeToString(mac.Sum(nil)) {
			t.Fatalf("callback %s with signature %q", h.method, h.sig)
		}
	}
	if got[0].id != got[1].id || string(got[0].body) != string(got[1].body) {
		t.Fatal("the retry is not the same delivery")
	}
	var body wire.Run
	if err := json.Unmarshal(got[1].body, &body); err != nil || body.ID != id || body.PublicToken != token || len(body.Results) != 1 {
		t.Fatalf("callback body %s: %v", got[1].body, err)
	}
	deadline2 := time.Now().Add(10 * time.Second)
	for {
		cb, err := store.GetRunCallback(context.Background(), s.db, id)
		if err == nil && cb.Status == store.DeliveryDelivered && cb.Attempts == 2 {
			break
		}
		if time.Now().After(deadline2) {
			t.Fatalf("callback after the 200: %+v %v", cb, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

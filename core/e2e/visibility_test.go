package e2e_test

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"oj/core/api/client"
	"oj/core/build"
	"oj/core/judge/problem/problemtest"
	"oj/core/store"
	"oj/core/testenv"
	"oj/core/wire"
)

// echo copies its input to stdout and stderr and exits with the input's first number:
// every channel a program has to hand a hidden test's input to its owner. On the sample
// it takes a moment first, so that an event stream opened after the submit sees the
// hidden case's `case` event.
const echo = `import sys, time
data = sys.stdin.read()
if "SAMPLE" in data:
    time.sleep(0.5)
sys.stdout.write("OUT:" + data)
sys.stderr.write("LEAK:" + data)
sys.exit(int(data.split()[0]))
`

// quoting is a checker that quotes the case's input in its message and says WA.
const quoting = `#include <cstdio>
int main(int argc, char **argv) {
	char buf[256] = {0};
	FILE *in = std::fopen(argv[1], "r");
	if (in) std::fread(buf, 1, sizeof buf - 1, in);
	std::fprintf(stderr, "the input was %s", buf);
	return 1;
}
`

// secret marks the hidden case's input: no answer to the owner may hold it.
const secret = "HIDDEN-TWO"

func leakyPackage(extraYAML string) map[string]string {
	return problemtest.Cases(map[string]string{"problem.yaml": "title: Echo\nsamples: [1]\n" + extraYAML},
		[2]string{"7 SAMPLE-ONE\n", "x\n"}, [2]string{"9 " + secret + "\n", "y\n"})
}

// A contestant never reads a hidden test: a program that echoes its input to stdout,
// stderr and its exit code, and a checker that quotes the input, show the owner the
// sample case whole and of the hidden case only its verdict, time and memory — in GET,
// the case route, a submit with wait_ms and the event stream. An admin sees all of it,
// and a problem whose tests are public shows its owner every case.
func TestHiddenCasesNeverReachTheOwner(t *testing.T) {
	s := newSystem(t, 2)
	bs := build.NewServer(s.streams.Client(), s.streams.Keys, s.judge, "e2e-builder", 2, testLog())
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = bs.Run(ctx) }()
	t.Cleanup(func() { stop(); <-done })
	admin := apiOn(t, s, build.NewClient(s.streams.Client(), s.streams.Keys, 2*time.Minute))
	userTok, err := store.CreateToken(context.Background(), s.db, testenv.RandomName("alice-"), "user")
	if err != nil {
		t.Fatal(err)
	}
	alice := client.New(admin.BaseURL, userTok)

	if _, aerr := put(admin, "echo", leakyPackage("")); aerr != nil {
		t.Fatalf("upload: %+v", aerr)
	}
	quote := leakyPackage("checker: {type: testlib, source: checker.cpp}\n")
	quote["checker.cpp"] = quoting
	if _, aerr := put(admin, "quote", quote); aerr != nil {
		t.Fatalf("upload with the quoting checker: %+v", aerr)
	}
	if _, aerr := put(admin, "public", leakyPackage("public_tests: true\n")); aerr != nil {
		t.Fatalf("upload of the public problem: %+v", aerr)
	}

	// The echo: RE on both cases, exit codes 7 and 9. The stream is opened as soon as
	// the submission exists and read to its end.
	res, err := alice.Submit(context.Background(), wire.SubmitRequest{ProblemID: "echo", Language: "python3", Source: echo}, "")
	if err != nil {
		t.Fatal(err)
	}
	id := res.ID()
	stream := rawGet(t, alice, "/api/v1/submissions/"+id+"/events")
	sub := s.waitAPI(t, alice, id)
	if *sub.Verdict != "RE" || len(sub.Cases) != 2 {
		t.Fatalf("echo judged %+v", sub)
	}
	if c := sub.Cases[0]; !c.Sample || c.Message != "exit code 7" {
		t.Errorf("the owner's sample case = %+v, want it whole", c)
	}
	if c := sub.Cases[1]; c.Sample || c.Message != "runtime error" || c.Verdict != "RE" || c.TimeMS == 0 {
		t.Errorf("the owner's hidden case = %+v, want its verdict and figures only", c)
	}
	c1, err := alice.Case(context.Background(), id, 1)
	if err != nil || !strings.Contains(c1.Stderr, "LEAK:7 SAMPLE-ONE") || !strings.Contains(c1.Stdout, "OUT:7 SAMPLE-ONE") {
		t.Errorf("the owner's sample excerpts = %+v %v", c1, err)
	}
	for what, body := range map[string]string{
		"GET":          rawGet(t, alice, "/api/v1/submissions/"+id),
		"GET case 2":   rawGet(t, alice, "/api/v1/submissions/"+id+"/cases/2"),
		"event stream": stream,
	} {
		if strings.Contains(body, secret) || strings.Contains(body, "exit code 9") || strings.Contains(body, "LEAK") {
			t.Errorf("%s gives the owner the hidden case: %s", what, body)
		}
	}
	if !strings.Contains(stream, `"index":2`) || !strings.Contains(stream, "event: case") {
		t.Errorf("the stream carried no case event of the hidden case:\n%s", stream)
	}
	a2, err := admin.Case(context.Background(), id, 2)
	if err != nil || !strings.Contains(a2.Stderr, "LEAK:9 "+secret) || a2.Message != "exit code 9" {
		t.Errorf("the admin's hidden case = %+v %v, want it whole", a2, err)
	}

	// The quoting checker, through a submit that waits for its verdict.
	wait := int64(10_000)
	res, err = alice.Submit(context.Background(), wire.SubmitRequest{ProblemID: "quote", Language: "python3",
		Source: "print(0)\n", WaitMS: &wait}, "")
	if err != nil {
		t.Fatal(err)
	}
	qid := res.ID()
	s.waitAPI(t, alice, qid)
	for what, body := range map[string]string{
		"GET":        rawGet(t, alice, "/api/v1/submissions/"+qid),
		"GET case 2": rawGet(t, alice, "/api/v1/submissions/"+qid+"/cases/2"),
	} {
		if strings.Contains(body, secret) || strings.Contains(body, "the input was") || !strings.Contains(body, `"verdict":"WA"`) {
			t.Errorf("%s of the quoting checker's verdict gives the owner the hidden input: %s", what, body)
		}
	}
	if res.Submission != nil {
		for _, c := range res.Submission.Cases {
			if strings.Contains(c.Message, secret) || c.CheckerMessage != "" {
				t.Errorf("the waiting submit's answer gives the owner %+v", c)
			}
		}
	}
	if a, err := admin.Submission(context.Background(), qid); err != nil || !strings.Contains(a.Cases[1].CheckerMessage, secret) {
		t.Errorf("the admin's view of the quoting checker = %+v %v", a, err)
	}

	// Public tests: the owner sees the second case as a sample.
	res, err = alice.Submit(context.Background(), wire.SubmitRequest{ProblemID: "public", Language: "python3", Source: echo}, "")
	if err != nil {
		t.Fatal(err)
	}
	s.waitAPI(t, alice, res.ID())
	if c2, err := alice.Case(context.Background(), res.ID(), 2); err != nil || !strings.Contains(c2.Stderr, "LEAK:9 "+secret) ||
		c2.Message != "exit code 9" || c2.Sample {
		t.Errorf("public tests: the owner's case 2 = %+v %v", c2, err)
	}
}

// rawGet is the body of an authenticated GET as text, read to its end (an event stream
// ends after the terminal event).
func rawGet(t *testing.T, c *client.Client, path string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.BaseURL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+c.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	_, err = io.Copy(&b, bufio.NewReader(resp.Body))
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v %s", path, resp.StatusCode, err, b.String())
	}
	return b.String()
}

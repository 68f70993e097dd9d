// Package build lets the API have a worker compile a problem package's testlib checker
// and interactor before the package becomes a problem version. The API process runs
// unprivileged and without a sandbox, so it compiles nothing itself; a worker builds in
// its sandbox, keeps the binaries in its package cache (judging then finds them), and
// answers ok, does not compile (with the compiler's output) or could not build.
//
// The exchange goes through Redis, whose keys core/stream names:
//
//   - the API stores the package in the object store, then adds a request {id, sha256,
//     deadline} to the stream oj:{build}:requests (capped, approximately, at MaxRequests
//     entries) and waits on the list oj:{build}:reply:<id> with BLPOP, in finite slices,
//     until the deadline (api.tool_build_timeout);
//   - workers read the stream through the consumer group oj-builders, each as many
//     requests at once as it has build slots (worker.tool_builds), build within the
//     request's deadline, push the reply as JSON to the list with an expiry (ReplyTTL,
//     so an answer nobody waits for goes away), then acknowledge and delete the request;
//   - a request past its deadline is dropped unbuilt: nobody waits for it any more;
//   - a worker that dies mid-build leaves its request pending; another worker claims it
//     once idle for ClaimIdle and builds it if its deadline has not passed (a live
//     worker keeps the requests it builds from going idle).
//
// Redis holds no truth here either: losing every key costs at most one upload answered
// 503, which the admin retries.
package build

import (
	"encoding/json"
	"time"
)

// Group is the consumer group workers read build requests through.
const Group = "oj-builders"

// Stream entry fields of a request.
const (
	FieldID       = "id"
	FieldSHA256   = "sha256"
	FieldDeadline = "deadline" // unix milliseconds
	FieldTrace    = "trace"
)

const (
	// MaxRequests caps the request stream (XADD MAXLEN ~): requests live seconds.
	MaxRequests = 1000
	// ReplyTTL is how long an answer waits for its reader.
	ReplyTTL = 5 * time.Minute
	// ClaimIdle is how long a request stays pending before another worker takes it over
	// (a worker building it keeps it from going idle).
	ClaimIdle = time.Minute
	// replyMargin is how long before the request's deadline a build is stopped, so that
	// its answer reaches the API while it still waits (a tenth of the time left when
	// that is less).
	replyMargin = 2 * time.Second
)

// Status is a reply's outcome.
type Status string

const (
	// StatusOK: every tool built (and the worker keeps the binaries).
	StatusOK Status = "ok"
	// StatusCompileError: a tool does not compile; Kind, Source and Message (the
	// compiler's output) say which and why. The package is refused.
	StatusCompileError Status = "compile_error"
	// StatusTimeout: a tool's compile did not finish within its bound
	// (judge.tool_compile, or what was left of the upload's wait); Kind and Source say
	// which, Message names the bound. The package is refused: a compile that blocks
	// never finishes, however often it is tried.
	StatusTimeout Status = "timeout"
	// StatusInvalid: the worker cannot read the package. The package is refused.
	StatusInvalid Status = "invalid"
	// StatusFailed: the worker could not do the build for reasons of its own (the
	// sandbox, the object store, a missing compiler); trying again later may work.
	StatusFailed Status = "failed"
)

// Reply is a worker's answer to one request.
type Reply struct {
	Status  Status `json:"status"`
	Kind    string `json:"kind,omitempty"`   // checker or interactor
	Source  string `json:"source,omitempty"` // the tool's source in the package
	Message string `json:"message,omitempty"`
	Worker  string `json:"worker"`
}

func (r Reply) encode() string {
	b, _ := json.Marshal(r)
	return string(b)
}

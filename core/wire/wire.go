// Package wire holds the JSON shapes of oj's HTTP API, shared by the server (core/api)
// and its Go client (core/api/client), so that ojctl and the TUI link no server code.
// Field names are the contract of DESIGN.md's "HTTP API" section. Each resource has its
// own file (submissions.go, problems.go, tokens.go, …); the admin endpoints' shapes
// (/admin/v1/…) are those ojctl and the TUI drive.
package wire

// Error is the body of every error answer: {"error":{"code":"…","message":"…"}}.
type Error struct {
	Error ErrorBody `json:"error"`
}

// ErrorBody says what went wrong: a stable machine code and a human message.
type ErrorBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Health is the answer of /healthz and /readyz.
type Health map[string]string

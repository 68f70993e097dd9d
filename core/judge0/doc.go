// Package judge0 is the pure half of oj's Judge0 CE-compatible face: Judge0's JSON
// shapes, its status table (ids 1–14), its numeric language ids mapped onto oj's
// languages, the rendering of a stored run as a Judge0 submission (fields selection,
// base64), Judge0's expected_output comparison, command-line splitting as a shell would
// split (never through one), compiler-option allow-lists, and the config_info maxima with
// their enforcement (422 with {field: [messages]}).
//
// It performs no I/O: core/api/judge0 serves it over HTTP and translates a Judge0
// submission onto oj's own run path (store.SubmitRun); the dispatcher renders Judge0
// callbacks through it. There is no second pipeline.
package judge0

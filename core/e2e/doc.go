// Package e2e holds the end-to-end tests and benchmarks of the judge core: real
// PostgreSQL and Redis, the relay, a worker whose judge compiles and runs submissions in
// the real sandbox, and verdicts read back from PostgreSQL. It has no code of its own.
package e2e

// Package e2e holds the dashboard's end-to-end test: the real ojd and ojctl binaries, the
// dashboard driven in tmux with keys, checked on the captured screen.
package e2e

package job

import (
	"testing"
	"time"
)

func TestBackoff(t *testing.T) {
	tests := []struct {
		n    int
		want time.Duration
	}{{1, time.Second}, {2, 2 * time.Second}, {3, 4 * time.Second}, {6, 30 * time.Second}, {60, 30 * time.Second}}
	for _, tc := range tests {
		if got := Backoff(time.Second, 30*time.Second, tc.n); got != tc.want {
			t.Errorf("Backoff(1s, 30s, %d) = %s, want %s", tc.n, got, tc.want)
		}
	}
}

func TestIsSubmissionIDTakesTheCanonicalFormOnly(t *testing.T) {
	const id = "01a2183c-133a-7457-b924-96f18b8434f9"
	if !IsSubmissionID(id) {
		t.Fatalf("%s refused", id)
	}
	for _, s := range []string{"", "nope", "01A2183C-133A-7457-B924-96F18B8434F9", "urn:uuid:" + id, "{" + id + "}",
		"01a2183c133a7457b92496f18b8434f9", id + " ", " " + id, id[:35] + "g", "01a2183c-133a-7457-b924_96f18b8434f9"} {
		if IsSubmissionID(s) {
			t.Errorf("%q taken as an id", s)
		}
	}
}

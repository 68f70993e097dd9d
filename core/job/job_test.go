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

package spelling

import "testing"

func TestNearest(t *testing.T) {
	t.Parallel()
	valid := []string{"dry_run", "limit", "min_idle_ms", "time_limit_ms", "state", "problem"}
	for _, c := range []struct{ name, typed, want string }{
		{"a hyphen for an underscore", "dry-run", "dry_run"},
		{"another case", "DryRun", "dry_run"},
		{"a prefix", "time_limit", "time_limit_ms"},
		{"one letter off", "stat", "state"},
		{"two letters swapped", "limti", "limit"},
		{"nothing close", "owner", ""},
		{"too long to be a slip", string(make([]byte, 100)), ""},
		{"empty", "", ""},
	} {
		if got := Nearest(c.typed, valid); got != c.want {
			t.Errorf("%s: Nearest(%q) = %q, want %q", c.name, c.typed, got, c.want)
		}
	}
}

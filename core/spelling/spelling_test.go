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

func TestNearestKeys(t *testing.T) {
	keys := []string{"title", "time_limit_ms", "memory_limit_mb", "checker", "addr", "key_prefix"}
	for _, tc := range []struct{ name, typed, want string }{
		{"a prefix of the key", "time_limit", "time_limit_ms"},
		{"case and underscores", "MemoryLimitMB", "memory_limit_mb"},
		{"one letter off", "chekcer", "checker"},
		{"two letters off", "adr", "addr"},
		{"a dash for an underscore", "key-prefix", "key_prefix"},
		{"nothing near", "mode", ""},
		{"too short to be a prefix", "ti", ""},
		{"too long to compare", string(make([]byte, 100)), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Nearest(tc.typed, keys); got != tc.want {
				t.Errorf("Nearest(%q) = %q, want %q", tc.typed, got, tc.want)
			}
		})
	}
}

func TestKeyHint(t *testing.T) {
	t.Parallel()
	valid := []string{"listen", "read_timeout", "limits"}
	for _, c := range []struct{ name, path, key, want string }{
		{"a slip in a section", "api", "read-timeout",
			`did you mean "api.read_timeout"? valid keys of api: listen, read_timeout, limits`},
		{"a slip at the top", "", "limit", `did you mean "limits"? valid keys: listen, read_timeout, limits`},
		{"nothing close", "api", "owner", "valid keys of api: listen, read_timeout, limits"},
	} {
		if got := KeyHint(c.path, c.key, valid); got != c.want {
			t.Errorf("%s: KeyHint(%q, %q) = %q, want %q", c.name, c.path, c.key, got, c.want)
		}
	}
}

package judge0

import (
	"encoding/base64"
	"strings"
	"testing"
)

func TestMatchesIsJudge0sTrailingWhitespaceRule(t *testing.T) {
	p := func(s string) *string { return &s }
	for _, c := range []struct {
		stdout   string
		expected *string
		want     bool
	}{
		{"3\n", p("3"), true},
		{"3", p("3\n"), true},
		{"3 \n", p("3"), true},
		{"a \nb\n", p("a\nb"), true},
		{"3\r\n", p("3"), true},
		{"3\n\n\n", p("3"), true},
		{" 3\n", p("3"), false},
		{"a\n\nb", p("a\nb"), false},
		{"anything", nil, true},
		{"", p(""), true},
		{"1 2", p("1  2"), false},
	} {
		if got := Matches(c.expected, c.stdout); got != c.want {
			t.Errorf("Matches(%v, %q) = %v, want %v", c.expected, c.stdout, got, c.want)
		}
	}
}

func TestEncodeWrapsAsRubyAndDecodeReadsAnything(t *testing.T) {
	long := strings.Repeat("x", 100)
	enc := Encode(long)
	lines := strings.Split(strings.TrimSuffix(enc, "\n"), "\n")
	if len(lines) != 3 || len(lines[0]) != 60 || !strings.HasSuffix(enc, "\n") {
		t.Fatalf("Encode wraps at 60 with a final newline, got %q", enc)
	}
	if Decode(enc) != long {
		t.Fatalf("Decode(Encode(x)) != x")
	}
	bin := "\xff\xfe\x00abc\x80"
	if Decode(Encode(bin)) != bin {
		t.Fatalf("binary does not round-trip")
	}
	if Decode(base64.RawStdEncoding.EncodeToString([]byte("hi!!"))) != "hi!!" {
		t.Fatalf("unpadded base64 is refused")
	}
	_ = Decode("!!!not base64!!!") // any text decodes to something, as in Judge0
	if Encode("") != "" {
		t.Fatalf("empty encodes to empty")
	}
}

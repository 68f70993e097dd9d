package judge0

import (
	"encoding/base64"
	"strings"
)

// Matches is Judge0's expected_output rule: each line's trailing whitespace and the
// whole text's trailing whitespace do not count, leading whitespace does. A nil
// expected output matches anything (the run is Accepted when it ran cleanly).
func Matches(expected *string, stdout string) bool {
	return expected == nil || stripOutput(*expected) == stripOutput(stdout)
}

func stripOutput(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, rubySpace)
	}
	return strings.TrimRight(strings.Join(lines, "\n"), rubySpace)
}

// rubySpace is what Ruby's rstrip removes: NUL and ASCII whitespace.
const rubySpace = "\x00\t\n\v\f\r "

// Encode is base64 as Judge0 writes it (Ruby's Base64.encode64): standard alphabet with
// padding, a line break after every 60 characters and at the end.
func Encode(b string) string {
	if b == "" {
		return ""
	}
	enc := base64.StdEncoding.EncodeToString([]byte(b))
	var sb strings.Builder
	for len(enc) > 60 {
		sb.WriteString(enc[:60])
		sb.WriteByte('\n')
		enc = enc[60:]
	}
	sb.WriteString(enc)
	sb.WriteByte('\n')
	return sb.String()
}

// Decode reads base64 as Judge0 does (Ruby's Base64.decode64): characters outside the
// alphabet are skipped and missing padding is forgiven, so any string decodes.
func Decode(s string) string {
	var clean strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' {
			clean.WriteByte(c)
		} else if c == '=' {
			break
		}
	}
	t := clean.String()
	if len(t)%4 == 1 { // one stray character carries no whole byte
		t = t[:len(t)-1]
	}
	out, err := base64.RawStdEncoding.DecodeString(t)
	if err != nil {
		// Trailing bits that are not zero: decode what the whole quanta hold.
		out, _ = base64.RawStdEncoding.DecodeString(t[:len(t)/4*4])
	}
	return string(out)
}

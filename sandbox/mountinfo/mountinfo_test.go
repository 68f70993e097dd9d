package mountinfo

import "testing"

func TestUnescape(t *testing.T) {
	for in, want := range map[string]string{
		`/a\040b`:        "/a b",
		`/tab\011x\012y`: "/tab\tx\ny",
		`/back\134slash`: `/back\slash`,
		`/plain`:         "/plain",
		`/end\04`:        `/end\04`,  // too short to be an escape
		`/big\777`:       `/big\777`, // not a byte
		`/not\08x`:       `/not\08x`, // 8 is not octal
	} {
		if got := Unescape(in); got != want {
			t.Errorf("Unescape(%q) = %q, want %q", in, got, want)
		}
	}
}

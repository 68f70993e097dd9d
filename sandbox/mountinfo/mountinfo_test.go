package mountinfo

import (
	"slices"
	"strings"
	"testing"
)

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

func TestParseAndBelow(t *testing.T) {
	const lines = `22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw
90 22 0:50 / /var/lib/oj/work rw - ext4 /dev/vdb rw
91 90 0:51 / /var/lib/oj/work/tasks rw,nosuid,nodev shared:7 master:2 - tmpfs tmpfs rw,size=4194304k
92 91 0:52 / /var/lib/oj/work/tasks rw - tmpfs tmpfs rw
93 90 0:53 / /var/lib/oj/work/a\040b/c/d rw - tmpfs none rw
94 22 0:54 / /var/lib/oj/workshop rw - tmpfs none rw
short line
`
	ms, err := Parse(strings.NewReader(lines))
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 6 || ms[1] != (Mount{"/var/lib/oj/work", "ext4"}) || ms[2] != (Mount{"/var/lib/oj/work/tasks", "tmpfs"}) {
		t.Fatalf("Parse: %+v", ms)
	}
	got := Below(ms, "/var/lib/oj/work/")
	want := []Mount{{"/var/lib/oj/work/a b/c/d", "tmpfs"}, {"/var/lib/oj/work/tasks", "tmpfs"}, {"/var/lib/oj/work/tasks", "tmpfs"}}
	if !slices.Equal(got, want) {
		t.Fatalf("Below: %+v, want %+v", got, want)
	}
}

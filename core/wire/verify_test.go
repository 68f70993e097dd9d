package wire

import "testing"

// A time divided by its language's time factor is said to be one, beside the time as
// measured; a verification without a factor (factor 1, or stored before the factor was
// kept) reads as before.
func TestSlowestACTextSaysWhenATimeWasDividedByAFactor(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		v    Verification
		want string
	}{
		{"none accepted", Verification{}, "none"},
		{"factor 1", Verification{SlowestACMS: 62, SlowestACSource: "a.cpp", SlowestACLanguage: "cpp17", SlowestACMeasuredMS: 62,
			SlowestACFactor: 1}, "62 ms (a.cpp)"},
		{"stored before the factor was kept", Verification{SlowestACMS: 62, SlowestACSource: "a.cpp"}, "62 ms (a.cpp)"},
		{"divided by the factor", Verification{SlowestACMS: 710, SlowestACSource: "Main.java", SlowestACLanguage: "java",
			SlowestACMeasuredMS: 1420, SlowestACFactor: 2},
			"java: 1420 ms measured, 710 ms after the language's time factor 2 (Main.java)"},
		{"a fractional factor", Verification{SlowestACMS: 800, SlowestACSource: "a.py", SlowestACLanguage: "pypy3",
			SlowestACMeasuredMS: 1200, SlowestACFactor: 1.5},
			"pypy3: 1200 ms measured, 800 ms after the language's time factor 1.5 (a.py)"},
	} {
		if got := c.v.SlowestACText(); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

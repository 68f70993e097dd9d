package shared

import "strings"

// Series keeps the last values of one metric for a sparkline.
type Series struct {
	vals []float64
	max  int
}

// NewSeries keeps up to n values.
func NewSeries(n int) *Series { return &Series{max: n} }

// Add appends v, dropping the oldest value when full.
func (s *Series) Add(v float64) {
	if len(s.vals) == s.max {
		copy(s.vals, s.vals[1:])
		s.vals = s.vals[:len(s.vals)-1]
	}
	s.vals = append(s.vals, v)
}

// Last is the newest value (0 when empty).
func (s *Series) Last() float64 {
	if len(s.vals) == 0 {
		return 0
	}
	return s.vals[len(s.vals)-1]
}

// Len is the number of values kept.
func (s *Series) Len() int { return len(s.vals) }

var bars = []rune("▁▂▃▄▅▆▇█")

// Spark renders the newest width values as a sparkline scaled between their minimum and
// maximum (a flat line sits in the middle, or on the floor when it is zero).
func (s *Series) Spark(width int) string {
	if width <= 0 {
		return ""
	}
	vals := s.vals
	if len(vals) > width {
		vals = vals[len(vals)-width:]
	}
	if len(vals) == 0 {
		return ""
	}
	lo, hi := vals[0], vals[0]
	for _, v := range vals {
		lo, hi = min(lo, v), max(hi, v)
	}
	var b strings.Builder
	for _, v := range vals {
		i := 0
		switch {
		case hi > lo:
			i = int((v - lo) / (hi - lo) * float64(len(bars)-1))
		case v > 0:
			i = len(bars)/2 - 1
		}
		b.WriteRune(bars[max(0, min(i, len(bars)-1))])
	}
	return b.String()
}

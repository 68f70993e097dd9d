package api

import "unicode/utf8"

// invalidUTF8At is the offset of the first byte of b that does not start a valid UTF-8
// sequence, or len(b).
func invalidUTF8At(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(b)
}

// loneSurrogate returns the offset in a well-formed JSON text of the first \uXXXX escape
// that is half of a UTF-16 surrogate pair without its other half, or -1. encoding/json
// decodes such an escape to U+FFFD without a word.
func loneSurrogate(b []byte) int {
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 >= len(b) {
			continue
		}
		if b[i+1] != 'u' {
			i++ // an escaped character, possibly a backslash: skip it
			continue
		}
		r, ok := hex4(b[i+2:])
		if !ok {
			i++
			continue
		}
		switch {
		case r >= 0xD800 && r < 0xDC00:
			if i+7 < len(b) && b[i+6] == '\\' && b[i+7] == 'u' {
				if lo, ok := hex4(b[i+8:]); ok && lo >= 0xDC00 && lo < 0xE000 {
					i += 11
					continue
				}
			}
			return i
		case r >= 0xDC00 && r < 0xE000:
			return i
		}
		i += 5
	}
	return -1
}

// hex4 parses the four hex digits at the start of b.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

package problem

import (
	"errors"
	"fmt"
)

// The reasons a package is rejected. Every error Read returns for a bad package is a
// *InvalidError wrapping one of these, so the API answers 400 with Error() as the message
// and may switch on the reason with errors.Is.
var (
	ErrNotZip          = errors.New("not a zip archive")
	ErrTooLarge        = errors.New("package too large")
	ErrZipBomb         = errors.New("zip bomb")
	ErrBadPath         = errors.New("bad path")
	ErrSymlink         = errors.New("symlink entry")
	ErrNotRegular      = errors.New("not a regular file")
	ErrDuplicate       = errors.New("duplicate entry")
	ErrMissingFile     = errors.New("missing file")
	ErrBadTests        = errors.New("bad test numbering")
	ErrBadYAML         = errors.New("bad problem.yaml")
	ErrBadChecker      = errors.New("bad checker")
	ErrBadSubtasks     = errors.New("bad subtasks")
	ErrBadSamples      = errors.New("bad samples")
	ErrBadLimits       = errors.New("bad limits")
	ErrCorrupt         = errors.New("corrupt entry")
	ErrTooManyFiles    = errors.New("too many files")
	ErrBadInteractor   = errors.New("bad interactor")
	ErrUnsupportedFile = errors.New("unsupported entry")
	ErrLayout          = errors.New("unclear package layout")
	ErrBadSubmissions  = errors.New("bad labeled submissions")
	ErrBadLanguages    = errors.New("bad language rules")
	// ErrUnsupported is a feature of a Kattis or Polygon package that oj cannot honour
	// (multi-pass, custom graders, …): refused, never ignored.
	ErrUnsupported = errors.New("unsupported feature")
)

// InvalidError says why a package was rejected: Reason is one of the Err* values above,
// Name the entry concerned (if any), Line the line of Name's content at fault (0: the
// entry as a whole), Detail the specifics.
type InvalidError struct {
	Reason error
	Name   string
	Line   int
	Detail string
}

func (e *InvalidError) Error() string {
	if e.Line > 0 {
		// A mistake inside a file the setter wrote: where it is says more than the
		// reason's category.
		return fmt.Sprintf("%s line %d: %s", e.Name, e.Line, e.Detail)
	}
	s := e.Reason.Error()
	if e.Name != "" {
		s += fmt.Sprintf(" %q", e.Name)
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

func (e *InvalidError) Unwrap() error { return e.Reason }

func invalid(reason error, name, format string, args ...any) error {
	return &InvalidError{Reason: reason, Name: name, Detail: fmt.Sprintf(format, args...)}
}

// IsInvalid reports whether err says the package itself is bad (as opposed to an I/O
// failure while reading it).
func IsInvalid(err error) bool {
	var ie *InvalidError
	return errors.As(err, &ie)
}

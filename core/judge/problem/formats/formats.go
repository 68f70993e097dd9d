// Package formats reads a problem upload in any of the formats oj takes — its own
// package, a Kattis package (legacy, 2023-07 draft, 2025-09) or a Polygon full package
// — and returns oj's package for it: what gets stored, content-addressed, and what
// workers unpack. The format is detected from what the zip holds, or forced.
package formats

import (
	"errors"
	"fmt"

	"oj/core/judge/problem"
	"oj/core/judge/problem/kattis"
	"oj/core/judge/problem/polygon"
)

// The formats, as ?format= and the version's metadata name them.
const (
	OJ      = "oj"
	Kattis  = "kattis"
	Polygon = "polygon"
)

// Names lists the formats.
var Names = []string{OJ, Kattis, Polygon}

// ErrUnknownFormat is a format name that is none of Names.
var ErrUnknownFormat = errors.New("unknown package format")

// Imported is an upload read: oj's package (Zip, as stored) and how it was read.
type Imported struct {
	Zip     []byte
	Package *problem.Package
	Import  problem.Import
}

// Import reads body as format ("" detects it: problem.xml is Polygon, problem.yaml
// with data/ — or with a name and no title — Kattis, anything else oj's own). An oj
// package is stored as uploaded; the others as the package they convert to, which is
// read again by oj's own reader before it is accepted.
func Import(body []byte, format string, lim problem.Limits) (*Imported, error) {
	return ImportAs(body, format, "", lim)
}

// ImportAs is Import for the problem id: a Kattis package that names itself nowhere
// (no name in problem.yaml, no \problemname in a statement) and sits in no folder is
// named after it.
func ImportAs(body []byte, format, id string, lim problem.Limits) (*Imported, error) {
	switch format {
	case "", OJ, Kattis, Polygon:
	default:
		return nil, fmt.Errorf("%w %q (want one of oj, kattis, polygon)", ErrUnknownFormat, format)
	}
	if format == OJ {
		return own(body, lim)
	}
	src, err := problem.OpenSourceBytes(body, lim)
	if err != nil {
		return nil, err
	}
	if format == "" {
		switch {
		case polygon.Is(src):
			format = Polygon
		case kattis.Is(src):
			format = Kattis
		default:
			return own(body, lim)
		}
	}
	var conv *problem.Converted
	switch format {
	case Polygon:
		if !polygon.Is(src) {
			return nil, &problem.InvalidError{Reason: problem.ErrMissingFile, Name: "problem.xml", Detail: "a Polygon package has problem.xml at its top"}
		}
		conv, err = polygon.Convert(src)
	case Kattis:
		if !src.Has("problem.yaml") {
			return nil, &problem.InvalidError{Reason: problem.ErrMissingFile, Name: "problem.yaml", Detail: "a Kattis package has problem.yaml at its top"}
		}
		conv, err = kattis.Convert(src, id)
	}
	if err != nil {
		return nil, err
	}
	pkg, err := problem.ReadBytes(conv.Zip, lim)
	if err != nil {
		var ie *problem.InvalidError
		if errors.As(err, &ie) {
			// The conversion made a package oj's reader refuses: say which, from where.
			ie.Detail = fmt.Sprintf("%s (in the package converted from %s)", ie.Detail, format)
		}
		return nil, err
	}
	return &Imported{Zip: conv.Zip, Package: pkg, Import: conv.Import}, nil
}

func own(body []byte, lim problem.Limits) (*Imported, error) {
	pkg, err := problem.ReadBytes(body, lim)
	if err != nil {
		return nil, err
	}
	return &Imported{Zip: body, Package: pkg, Import: problem.Import{Format: OJ, Mapped: []problem.Mapped{}, Notes: []string{}}}, nil
}

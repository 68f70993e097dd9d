package problem

import (
	"archive/zip"
	"bufio"
	"bytes"
	"fmt"
	"io"

	"gopkg.in/yaml.v3"
)

// Import says where a version came from: the format its package was in and what
// became what. A converted package's problem.yaml is oj's; this is kept beside it
// (the version's metadata), so GET of a problem can say how it was read.
type Import struct {
	// Format is oj, kattis or polygon; Version the format's own version (Kattis:
	// legacy, 2023-07-draft, 2025-09) when it has one.
	Format  string `json:"format"`
	Version string `json:"version,omitempty"`
	// Mapped lists what became what ("data/secret/01.in" → "tests/3.in", "validation:
	// custom" → "checker kattis").
	Mapped []Mapped `json:"mapped"`
	// Notes are what the package holds that oj keeps or leaves without using, and why.
	Notes []string `json:"notes"`
}

// Mapped is one line of an Import: what in the original became what in oj's package.
type Mapped struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// Map records a mapping.
func (im *Import) Map(from, to string) { im.Mapped = append(im.Mapped, Mapped{From: from, To: to}) }

// Note records a note.
func (im *Import) Note(format string, args ...any) {
	im.Notes = append(im.Notes, fmt.Sprintf(format, args...))
}

// Converted is a package converted to oj's format: the zip to store and how it was
// read.
type Converted struct {
	Zip    []byte
	Import Import
}

// Builder writes an oj package zip from a Source's files and generated ones.
type Builder struct {
	buf   bytes.Buffer
	zw    *zip.Writer
	names map[string]bool
	total int64
	lim   Limits
}

// NewBuilder starts a package zip bounded by lim (what it unpacks to).
func NewBuilder(lim Limits) *Builder {
	b := &Builder{names: map[string]bool{}, lim: lim}
	b.zw = zip.NewWriter(&b.buf)
	return b
}

// Has reports whether name was added.
func (b *Builder) Has(name string) bool { return b.names[name] }

func (b *Builder) create(name string) (io.Writer, error) {
	if err := checkPath(name); err != nil {
		return nil, err
	}
	if b.names[name] {
		return nil, invalid(ErrDuplicate, name, "two files of the package would both become %s", name)
	}
	b.names[name] = true
	return b.zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate})
}

// Add writes a generated file.
func (b *Builder) Add(name string, content []byte) error {
	w, err := b.create(name)
	if err != nil {
		return err
	}
	b.total += int64(len(content))
	if b.total > b.lim.MaxTotalBytes {
		return invalid(ErrTooLarge, name, "the converted package unpacks to more than %d bytes, the limit (%s)", b.lim.MaxTotalBytes, keyMaxTotalBytes)
	}
	_, err = w.Write(content)
	return err
}

// AddYAML writes v as YAML.
func (b *Builder) AddYAML(name string, v any) error {
	out, err := yaml.Marshal(v)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return b.Add(name, out)
}

// Copy writes the source's file from as to, under the package limits. With lf, CRLF
// line endings become LF (a test file written on Windows).
func (b *Builder) Copy(src *Source, from, to string, lf bool) (converted bool, err error) {
	w, err := b.create(to)
	if err != nil {
		return false, err
	}
	var cw *crlfWriter
	if lf {
		cw = &crlfWriter{w: bufio.NewWriterSize(w, 64<<10)}
		w = cw
	}
	n, err := src.Copy(from, w)
	if err != nil {
		return false, err
	}
	if cw != nil {
		if err := cw.Close(); err != nil {
			return false, err
		}
		converted = cw.dropped > 0
	}
	b.total += n
	if b.total > b.lim.MaxTotalBytes {
		return false, invalid(ErrTooLarge, from, "the converted package unpacks to more than %d bytes, the limit (%s)", b.lim.MaxTotalBytes, keyMaxTotalBytes)
	}
	return converted, nil
}

// Bytes finishes the zip.
func (b *Builder) Bytes() ([]byte, error) {
	if err := b.zw.Close(); err != nil {
		return nil, err
	}
	return b.buf.Bytes(), nil
}

// crlfWriter drops every \r that comes right before a \n, across writes.
type crlfWriter struct {
	w       *bufio.Writer
	cr      bool // a \r is held back: it goes out unless a \n follows
	dropped int64
}

func (c *crlfWriter) Write(p []byte) (int, error) {
	for _, ch := range p {
		if c.cr {
			c.cr = false
			if ch == '\n' {
				c.dropped++
			} else if err := c.w.WriteByte('\r'); err != nil {
				return 0, err
			}
		}
		if ch == '\r' {
			c.cr = true
			continue
		}
		if err := c.w.WriteByte(ch); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

func (c *crlfWriter) Close() error {
	if c.cr {
		if err := c.w.WriteByte('\r'); err != nil {
			return err
		}
	}
	return c.w.Flush()
}

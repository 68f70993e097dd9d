package problem

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"strings"
)

// archive/zip's NewReader parses a zip's whole central directory into memory (a File
// with its name, extra fields and comment per entry, and a slice sized by the count the
// zip declares) before the caller can look at a single entry: 2,000,000 empty entries in
// a 100 MiB upload cost it half a gigabyte. scanDirectory reads the same directory first,
// the way archive/zip will, through a small buffer, and refuses it as soon as it is over
// the limits; only a directory within them is handed to archive/zip.

// Sizes and signatures of the zip records read here (APPNOTE.TXT 4.3.12–4.3.16).
const (
	dirHeaderLen   = 46 // a central directory header, before name, extra and comment
	dirEndLen      = 22 // the end of central directory record, before its comment
	dir64LocLen    = 20 // the zip64 end of central directory locator
	dir64EndLen    = 56 // the zip64 end of central directory record, before its extra data
	dirHeaderSig   = 0x02014b50
	dir64LocSig    = 0x07064b50
	dir64EndSig    = 0x06064b50
	maxNameBytes   = 255     // the longest entry name a package may have (checkPath)
	entryExtraRoom = 1 << 10 // the extra fields and comment one entry may carry, on average
	scanBufBytes   = 32 << 10
)

// maxDirectoryBytes bounds a central directory holding at most maxFiles entries.
func maxDirectoryBytes(maxFiles int) int64 {
	return int64(maxFiles) * (dirHeaderLen + maxNameBytes + entryExtraRoom)
}

// directoryEnd is what a zip's end records say about its central directory.
type directoryEnd struct {
	records uint64 // entries
	size    uint64 // bytes
	offset  uint64 // where it starts, from the start of the archive (before baseOffset)
	endAt   int64  // where the end record archive/zip uses starts
}

// scanDirectory checks the central directory of the zip in r (size bytes) against lim
// before archive/zip parses it: the entry count and directory size the end records
// declare, then, walking the directory through a bounded buffer, every entry's name
// length, the number of entries and the bytes they take — so a directory that lies about
// its count or size is stopped once it is over a limit, whatever it declares. An archive
// this cannot make sense of is left to archive/zip, which refuses it.
func scanDirectory(r io.ReaderAt, size int64, lim Limits) error {
	end, err := readDirectoryEnd(r, size)
	if err != nil {
		return nil // not a zip to archive/zip either: it says why
	}
	if end.records > uint64(lim.MaxFiles) {
		return invalid(ErrTooManyFiles, "", "the zip has %d entries, over the limit of %d (%s)", end.records, lim.MaxFiles, keyMaxFiles)
	}
	maxBytes := maxDirectoryBytes(lim.MaxFiles)
	if end.size > uint64(maxBytes) {
		return invalid(ErrTooManyFiles, "", "the zip's directory is %d bytes, over the %d bytes that %d entries may take (%s)",
			end.size, maxBytes, lim.MaxFiles, keyMaxFiles)
	}
	// Where archive/zip will start reading the directory: after the data its end record
	// accounts for, or at the declared offset when a valid header is there (it trusts
	// that over the arithmetic). Both are walked rather than decide between them as it
	// would.
	base := end.endAt - int64(end.size) - int64(end.offset)
	if o := base + int64(end.offset); o < 0 || o >= size {
		return nil // archive/zip refuses it
	}
	starts := []int64{base + int64(end.offset)}
	if base > 0 {
		starts = append(starts, int64(end.offset))
	}
	for _, at := range starts {
		if err := walkDirectory(r, size, at, lim, maxBytes); err != nil {
			return err
		}
	}
	return nil
}

// walkDirectory reads the directory headers from at on, as archive/zip does (until a
// header that is not one), and refuses it once an entry's name is too long, it holds
// more than lim.MaxFiles entries or it takes more than maxBytes.
func walkDirectory(r io.ReaderAt, size, at int64, lim Limits, maxBytes int64) error {
	if at < 0 || at >= size {
		return nil
	}
	br := bufio.NewReaderSize(io.NewSectionReader(r, at, size-at), scanBufBytes)
	var hdr [dirHeaderLen]byte
	var walked int64
	for entries := 0; ; entries++ {
		if _, err := io.ReadFull(br, hdr[:]); err != nil {
			return nil
		}
		le := binary.LittleEndian
		if le.Uint32(hdr[0:]) != dirHeaderSig {
			return nil
		}
		if entries == lim.MaxFiles {
			return invalid(ErrTooManyFiles, "", "the zip has more than %d entries, the limit (%s), whatever its end record declares",
				lim.MaxFiles, keyMaxFiles)
		}
		nameLen, extraLen, commentLen := int(le.Uint16(hdr[28:])), int(le.Uint16(hdr[30:])), int(le.Uint16(hdr[32:]))
		if nameLen > maxNameBytes {
			prefix, _ := br.Peek(min(nameLen, 60))
			return invalid(ErrBadPath, strings.ToValidUTF8(string(prefix), "?")+"…", "path longer than %d bytes", maxNameBytes)
		}
		walked += int64(dirHeaderLen + nameLen + extraLen + commentLen)
		if walked > maxBytes {
			return invalid(ErrTooManyFiles, "", "the zip's directory takes more than %d bytes, what %d entries may take (%s), whatever its end record declares",
				maxBytes, lim.MaxFiles, keyMaxFiles)
		}
		if _, err := br.Discard(nameLen + extraLen + commentLen); err != nil {
			return nil
		}
	}
}

// readDirectoryEnd finds the end of central directory record (and the zip64 one it
// points to) exactly where archive/zip's reader does, so that both read the same
// directory: the last signature in the archive's last KiB, else in its last 65 KiB,
// with a comment that fits.
func readDirectoryEnd(r io.ReaderAt, size int64) (directoryEnd, error) {
	var buf []byte
	var endAt int64
	for i, n := range []int64{1024, 65 * 1024} {
		n = min(n, size)
		buf = make([]byte, n)
		if _, err := r.ReadAt(buf, size-n); err != nil && err != io.EOF {
			return directoryEnd{}, err
		}
		if p := findDirectoryEnd(buf); p >= 0 {
			buf, endAt = buf[p:], size-n+int64(p)
			break
		}
		if i == 1 || n == size {
			return directoryEnd{}, errNoDirectoryEnd
		}
	}
	le := binary.LittleEndian
	d := directoryEnd{
		records: uint64(le.Uint16(buf[10:])),
		size:    uint64(le.Uint32(buf[12:])),
		offset:  uint64(le.Uint32(buf[16:])),
		endAt:   endAt,
	}
	// archive/zip looks for zip64 records on these values (0xffff for the size, too).
	if d.records == 0xffff || d.size == 0xffff || d.offset == 0xffffffff {
		at, ok, err := findDirectory64End(r, endAt)
		if err != nil {
			return directoryEnd{}, err
		}
		if ok {
			var rec [dir64EndLen]byte
			if _, err := r.ReadAt(rec[:], at); err != nil {
				return directoryEnd{}, err
			}
			if le.Uint32(rec[0:]) != dir64EndSig {
				return directoryEnd{}, errNoDirectoryEnd
			}
			d.records, d.size, d.offset, d.endAt = le.Uint64(rec[32:]), le.Uint64(rec[40:]), le.Uint64(rec[48:]), at
		}
	}
	if d.size > 1<<63-1 || d.offset > 1<<63-1 {
		return directoryEnd{}, errNoDirectoryEnd
	}
	return d, nil
}

var errNoDirectoryEnd = errors.New("no end of central directory record")

// findDirectoryEnd returns where the last end record signature in b is, or -1; as
// archive/zip's, it gives up (-1) when that record's comment runs past b.
func findDirectoryEnd(b []byte) int {
	for i := len(b) - dirEndLen; i >= 0; i-- {
		if b[i] == 'P' && b[i+1] == 'K' && b[i+2] == 0x05 && b[i+3] == 0x06 {
			n := int(b[i+dirEndLen-2]) | int(b[i+dirEndLen-1])<<8
			if n+dirEndLen+i > len(b) {
				return -1
			}
			return i
		}
	}
	return -1
}

// findDirectory64End reads the zip64 locator just before the end record at endAt and
// returns the offset of the zip64 end record it names, if it is a valid one. As
// archive/zip, it ignores a locator naming a negative offset (the 16-bit values stand).
func findDirectory64End(r io.ReaderAt, endAt int64) (int64, bool, error) {
	at := endAt - dir64LocLen
	if at < 0 {
		return 0, false, nil
	}
	var loc [dir64LocLen]byte
	if _, err := r.ReadAt(loc[:], at); err != nil {
		return 0, false, err
	}
	le := binary.LittleEndian
	if le.Uint32(loc[0:]) != dir64LocSig || le.Uint32(loc[4:]) != 0 || le.Uint32(loc[16:]) != 1 {
		return 0, false, nil
	}
	at = int64(le.Uint64(loc[8:]))
	return at, at >= 0, nil
}

package problemtest

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
)

// DirZip describes a zip made of a central directory alone: N empty stored entries with
// no local headers or data (archive/zip reads none of those before an entry is opened,
// so this is all a hostile upload needs to cost a reader its directory).
type DirZip struct {
	N       int    // entries in the directory
	NameLen int    // bytes of each name (at least 7: a distinct decimal number)
	Comment int    // bytes of each entry's comment
	Records uint64 // entries the end record declares (lying when != N)
	Size    uint64 // directory bytes the end record declares; 0: the true size
	Zip64   bool   // end with a zip64 end record and locator
}

// Write streams the zip to w through a small buffer: memory does not grow with N.
func (z DirZip) Write(w io.Writer) error {
	if err := z.WriteEntries(w); err != nil {
		return err
	}
	return z.WriteEnd(w)
}

// Bytes is the zip in memory.
func (z DirZip) Bytes() []byte {
	var buf bytes.Buffer
	if err := z.Write(&buf); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// WriteEntries writes the directory's headers.
func (z DirZip) WriteEntries(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	le := binary.LittleEndian
	var hdr [46]byte
	le.PutUint32(hdr[0:], 0x02014b50)
	le.PutUint16(hdr[4:], 20)      // made by
	le.PutUint16(hdr[6:], 20)      // needed
	le.PutUint16(hdr[14:], 0x0021) // 1980-01-01
	le.PutUint16(hdr[28:], uint16(z.NameLen))
	le.PutUint16(hdr[32:], uint16(z.Comment))
	le.PutUint32(hdr[38:], 0o100644<<16) // a regular file, for Unix
	name := make([]byte, z.NameLen+z.Comment)
	for i := range name {
		name[i] = 'c'
	}
	for i := 0; i < z.N; i++ {
		copy(name, fmt.Sprintf("%07d", i))
		bw.Write(hdr[:])
		bw.Write(name)
	}
	return bw.Flush()
}

// WriteEnd writes the end records that follow the headers.
func (z DirZip) WriteEnd(w io.Writer) error {
	bw := bufio.NewWriter(w)
	le := binary.LittleEndian
	dirSize := uint64(z.N) * uint64(46+z.NameLen+z.Comment)
	if z.Size != 0 {
		dirSize = z.Size
	}
	var end [22]byte
	le.PutUint32(end[0:], 0x06054b50)
	if z.Zip64 {
		var rec [56]byte
		le.PutUint32(rec[0:], 0x06064b50)
		le.PutUint64(rec[4:], 44)
		le.PutUint16(rec[12:], 45)
		le.PutUint16(rec[14:], 45)
		le.PutUint64(rec[24:], z.Records)
		le.PutUint64(rec[32:], z.Records)
		le.PutUint64(rec[40:], dirSize)
		le.PutUint64(rec[48:], 0)
		var loc [20]byte
		le.PutUint32(loc[0:], 0x07064b50)
		le.PutUint64(loc[8:], uint64(z.N)*uint64(46+z.NameLen+z.Comment)) // the record follows the directory
		le.PutUint32(loc[16:], 1)
		bw.Write(rec[:])
		bw.Write(loc[:])
		le.PutUint16(end[8:], 0xffff)
		le.PutUint16(end[10:], 0xffff)
		le.PutUint32(end[12:], 0xffffffff)
		le.PutUint32(end[16:], 0xffffffff)
	} else {
		le.PutUint16(end[8:], uint16(z.Records))
		le.PutUint16(end[10:], uint16(z.Records))
		le.PutUint32(end[12:], uint32(dirSize))
		le.PutUint32(end[16:], 0)
	}
	bw.Write(end[:])
	return bw.Flush()
}

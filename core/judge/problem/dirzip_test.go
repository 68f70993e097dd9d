package problem

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
)

// dirZip describes a zip made of a central directory alone: n empty stored entries with
// no local headers or data (archive/zip reads none of those before an entry is opened,
// so this is all a hostile upload needs to cost a reader its directory).
type dirZip struct {
	n       int    // entries in the directory
	nameLen int    // bytes of each name (at least 7: a distinct decimal number)
	comment int    // bytes of each entry's comment
	records uint64 // entries the end record declares (lying when != n)
	size    uint64 // directory bytes the end record declares; 0: the true size
	zip64   bool   // end with a zip64 end record and locator
}

// write streams the zip to w through a small buffer: memory does not grow with n.
func (z dirZip) write(w io.Writer) error {
	if err := z.writeEntries(w); err != nil {
		return err
	}
	return z.writeEnd(w)
}

// writeEntries writes the directory's headers.
func (z dirZip) writeEntries(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	le := binary.LittleEndian
	var hdr [46]byte
	le.PutUint32(hdr[0:], 0x02014b50)
	le.PutUint16(hdr[4:], 20)      // made by
	le.PutUint16(hdr[6:], 20)      // needed
	le.PutUint16(hdr[14:], 0x0021) // 1980-01-01
	le.PutUint16(hdr[28:], uint16(z.nameLen))
	le.PutUint16(hdr[32:], uint16(z.comment))
	le.PutUint32(hdr[38:], 0o100644<<16) // a regular file, for Unix
	name := make([]byte, z.nameLen+z.comment)
	for i := range name {
		name[i] = 'c'
	}
	for i := 0; i < z.n; i++ {
		copy(name, fmt.Sprintf("%07d", i))
		bw.Write(hdr[:])
		bw.Write(name)
	}
	return bw.Flush()
}

// writeEnd writes the end records that follow the headers.
func (z dirZip) writeEnd(w io.Writer) error {
	bw := bufio.NewWriter(w)
	le := binary.LittleEndian
	dirSize := uint64(z.n) * uint64(46+z.nameLen+z.comment)
	if z.size != 0 {
		dirSize = z.size
	}
	var end [22]byte
	le.PutUint32(end[0:], 0x06054b50)
	if z.zip64 {
		var rec [56]byte
		le.PutUint32(rec[0:], 0x06064b50)
		le.PutUint64(rec[4:], 44)
		le.PutUint16(rec[12:], 45)
		le.PutUint16(rec[14:], 45)
		le.PutUint64(rec[24:], z.records)
		le.PutUint64(rec[32:], z.records)
		le.PutUint64(rec[40:], dirSize)
		le.PutUint64(rec[48:], 0)
		var loc [20]byte
		le.PutUint32(loc[0:], 0x07064b50)
		le.PutUint64(loc[8:], uint64(z.n)*uint64(46+z.nameLen+z.comment)) // the record follows the directory
		le.PutUint32(loc[16:], 1)
		bw.Write(rec[:])
		bw.Write(loc[:])
		le.PutUint16(end[8:], 0xffff)
		le.PutUint16(end[10:], 0xffff)
		le.PutUint32(end[12:], 0xffffffff)
		le.PutUint32(end[16:], 0xffffffff)
	} else {
		le.PutUint16(end[8:], uint16(z.records))
		le.PutUint16(end[10:], uint16(z.records))
		le.PutUint32(end[12:], uint32(dirSize))
		le.PutUint32(end[16:], 0)
	}
	bw.Write(end[:])
	return bw.Flush()
}

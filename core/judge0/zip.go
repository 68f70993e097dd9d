package judge0

import (
	"archive/zip"
	"bytes"
	"fmt"
	"path"
	"strings"
)

// MaxZipEntries bounds the entries of additional_files.
const MaxZipEntries = 1000

// CheckZip refuses an additional_files archive oj would not unpack: not a zip, more
// than MaxZipEntries entries, more than maxBytes once unpacked (as the entries declare;
// the unpacking holds them to it too), a link, or a name that is absolute or leaves the
// work dir.
func CheckZip(b []byte, maxBytes int) error {
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return fmt.Errorf("is not a zip archive: %v", err)
	}
	if len(zr.File) > MaxZipEntries {
		return fmt.Errorf("holds %d entries, at most %d", len(zr.File), MaxZipEntries)
	}
	var total uint64
	for _, f := range zr.File {
		name := f.Name
		clean := path.Clean(name)
		switch {
		case strings.HasPrefix(name, "/") || strings.Contains(name, `\`) || clean == ".." || strings.HasPrefix(clean, "../"):
			return fmt.Errorf("entry %q is outside the work dir", name)
		case f.Mode()&^0o777 != 0 && !f.Mode().IsDir():
			return fmt.Errorf("entry %q is not a regular file (links and devices are refused)", name)
		}
		total += f.UncompressedSize64
		if total > uint64(maxBytes) {
			return fmt.Errorf("unpacks to more than %d KB (max_extract_size)", maxBytes/1024)
		}
	}
	return nil
}

package problem

import "errors"

// Limits bound what Read accepts. They are the config keys judge.package_limits.*;
// errors name the key that refused a package, so an admin knows what to raise.
type Limits struct {
	// MaxZipBytes bounds the archive itself.
	MaxZipBytes int64 `mapstructure:"max_zip_bytes"`
	// MaxTotalBytes bounds the bytes all the package's files unpack to, counted as
	// they are inflated (entries' declared sizes are never trusted).
	MaxTotalBytes int64 `mapstructure:"max_total_bytes"`
	// MaxFileBytes bounds the bytes one file unpacks to, counted likewise.
	MaxFileBytes int64 `mapstructure:"max_file_bytes"`
	// MaxFiles bounds the zip's entries (files, directories and left-out names alike).
	MaxFiles int `mapstructure:"max_files"`
	// MaxCases bounds the number of test cases.
	MaxCases int `mapstructure:"max_cases"`
}

// The config keys of Limits, as errors name them.
const (
	keyMaxZipBytes   = "judge.package_limits.max_zip_bytes"
	keyMaxTotalBytes = "judge.package_limits.max_total_bytes"
	keyMaxFileBytes  = "judge.package_limits.max_file_bytes"
	keyMaxFiles      = "judge.package_limits.max_files"
	keyMaxCases      = "judge.package_limits.max_cases"
)

// DefaultLimits returns the defaults: 256 MiB zip, 1 GiB unpacked, 256 MiB per file,
// 2,000 entries, 500 cases.
func DefaultLimits() Limits {
	return Limits{
		MaxZipBytes:   256 << 20,
		MaxTotalBytes: 1 << 30,
		MaxFileBytes:  256 << 20,
		MaxFiles:      2000,
		MaxCases:      500,
	}
}

// Validate names the first bad key.
func (l Limits) Validate() error {
	switch {
	case l.MaxZipBytes <= 0:
		return errors.New("max_zip_bytes: must be > 0")
	case l.MaxTotalBytes <= 0:
		return errors.New("max_total_bytes: must be > 0")
	case l.MaxFileBytes <= 0:
		return errors.New("max_file_bytes: must be > 0")
	case l.MaxFiles <= 0:
		return errors.New("max_files: must be > 0")
	case l.MaxCases <= 0:
		return errors.New("max_cases: must be > 0")
	}
	return nil
}

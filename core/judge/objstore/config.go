package objstore

import (
	"context"
	"errors"
	"fmt"
)

// Config is the object store's part of ojd.yaml (key "storage").
type Config struct {
	// Backend is "fs" (default) or "s3".
	Backend string   `mapstructure:"backend"`
	FS      FSConfig `mapstructure:"fs"`
	S3      S3Config `mapstructure:"s3"`
}

// FSConfig configures the filesystem backend.
type FSConfig struct {
	// Root is the directory holding the objects.
	Root string `mapstructure:"root"`
}

// S3Config configures the S3/MinIO backend.
type S3Config struct {
	Endpoint  string `mapstructure:"endpoint"` // host:port, no scheme
	Bucket    string `mapstructure:"bucket"`
	Region    string `mapstructure:"region"`
	AccessKey string `mapstructure:"access_key"`
	SecretKey string `mapstructure:"secret_key"`
	UseTLS    bool   `mapstructure:"use_tls"`
	// CreateBucket makes Open create the bucket when it does not exist.
	CreateBucket bool `mapstructure:"create_bucket"`
}

// DefaultConfig returns the defaults: the filesystem under /var/lib/oj/objects.
func DefaultConfig() Config {
	return Config{
		Backend: "fs",
		FS:      FSConfig{Root: "/var/lib/oj/objects"},
		S3:      S3Config{Bucket: "oj", Region: "us-east-1", CreateBucket: true},
	}
}

// Validate names the first bad key.
func (c Config) Validate() error {
	switch c.Backend {
	case "fs":
		if c.FS.Root == "" {
			return errors.New("storage.fs.root: empty")
		}
	case "s3":
		switch {
		case c.S3.Endpoint == "":
			return errors.New("storage.s3.endpoint: empty")
		case c.S3.Bucket == "":
			return errors.New("storage.s3.bucket: empty")
		case c.S3.AccessKey == "":
			return errors.New("storage.s3.access_key: empty")
		case c.S3.SecretKey == "":
			return errors.New("storage.s3.secret_key: empty")
		}
	default:
		return fmt.Errorf("storage.backend: %q (want fs or s3)", c.Backend)
	}
	return nil
}

// Open returns the configured store.
func Open(ctx context.Context, c Config) (Store, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if c.Backend == "s3" {
		return NewS3(ctx, c.S3)
	}
	return NewFS(c.FS.Root)
}

package objstore

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// S3 stores objects in an S3 bucket (MinIO or any S3-compatible service).
type S3 struct {
	c      *minio.Client
	bucket string
}

// NewS3 connects to the bucket, creating it when configured to.
func NewS3(ctx context.Context, c S3Config) (*S3, error) {
	cl, err := minio.New(c.Endpoint, &minio.Options{
		Creds:  credentials.NewStaticV4(c.AccessKey, c.SecretKey, ""),
		Secure: c.UseTLS,
		Region: c.Region,
	})
	if err != nil {
		return nil, fmt.Errorf("s3 store: %w", err)
	}
	ok, err := cl.BucketExists(ctx, c.Bucket)
	if err != nil {
		return nil, fmt.Errorf("s3 store: bucket %s: %w", c.Bucket, err)
	}
	if !ok {
		if !c.CreateBucket {
			return nil, fmt.Errorf("s3 store: bucket %s does not exist", c.Bucket)
		}
		if err := cl.MakeBucket(ctx, c.Bucket, minio.MakeBucketOptions{Region: c.Region}); err != nil {
			return nil, fmt.Errorf("s3 store: create bucket %s: %w", c.Bucket, err)
		}
	}
	return &S3{c: cl, bucket: c.Bucket}, nil
}

func isNotFound(err error) bool {
	code := minio.ToErrorResponse(err).Code
	return code == "NoSuchKey" || code == "NotFound"
}

// Put implements Store.
func (s *S3) Put(ctx context.Context, key string, r io.Reader, size int64) error {
	if err := checkKey(key); err != nil {
		return err
	}
	_, err := s.c.PutObject(ctx, s.bucket, key, r, size, minio.PutObjectOptions{ContentType: "application/octet-stream"})
	if err != nil {
		return fmt.Errorf("put %s: %w", key, err)
	}
	return nil
}

// Get implements Store. The object is opened eagerly (one Stat round trip) so a missing
// key is reported here, not on the first Read.
func (s *S3) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	if err := checkKey(key); err != nil {
		return nil, err
	}
	o, err := s.c.GetObject(ctx, s.bucket, key, minio.GetObjectOptions{})
	if err != nil {
		return nil, fmt.Errorf("get %s: %w", key, err)
	}
	if _, err := o.Stat(); err != nil {
		o.Close()
		if isNotFound(err) {
			return nil, fmt.Errorf("get %s: %w", key, ErrNotFound)
		}
		return nil, fmt.Errorf("get %s: %w", key, err)
	}
	return o, nil
}

// Stat implements Store.
func (s *S3) Stat(ctx context.Context, key string) (Info, error) {
	if err := checkKey(key); err != nil {
		return Info{}, err
	}
	st, err := s.c.StatObject(ctx, s.bucket, key, minio.StatObjectOptions{})
	if err != nil {
		if isNotFound(err) {
			return Info{}, fmt.Errorf("stat %s: %w", key, ErrNotFound)
		}
		return Info{}, fmt.Errorf("stat %s: %w", key, err)
	}
	return Info{Size: st.Size}, nil
}

// Exists implements Store.
func (s *S3) Exists(ctx context.Context, key string) (bool, error) {
	_, err := s.Stat(ctx, key)
	if err == nil {
		return true, nil
	}
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	return false, err
}

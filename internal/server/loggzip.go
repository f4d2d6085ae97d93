package server

import (
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
)

// gzipFile compresses path into path.gz (mode 0600) and removes path. On failure path is
// left as it was and no partial path.gz remains.
func gzipFile(path string) (err error) {
	src, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("compressing log backup: %w", err)
	}
	defer src.Close()
	dst, err := os.OpenFile(path+".gz", os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("compressing log backup: %w", err)
	}
	defer func() {
		if err != nil {
			_ = os.Remove(dst.Name())
		}
	}()
	zw := gzip.NewWriter(dst)
	_, err = io.Copy(zw, src)
	err = errors.Join(err, zw.Close(), dst.Sync(), dst.Close())
	if err != nil {
		return fmt.Errorf("compressing log backup: %w", err)
	}
	return os.Remove(path)
}

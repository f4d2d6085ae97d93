package testbed

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/garrison-ci/garrison/providers/sim/simprovider"
)

// errUnsafeArchive is returned for archive entries that would land outside the target.
var errUnsafeArchive = errors.New("unsafe archive entry")

// untarGz unpacks a gzipped tar of directories and regular files into dir.
func untarGz(b []byte, dir string) error {
	gz, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return err
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := untarEntry(tr, h, dir); err != nil {
			return err
		}
	}
}

// untarEntry writes one archive entry below dir.
func untarEntry(r io.Reader, h *tar.Header, dir string) error {
	name := filepath.Clean(filepath.FromSlash(h.Name))
	if filepath.IsAbs(name) || name == ".." || strings.HasPrefix(name, ".."+string(filepath.Separator)) {
		return fmt.Errorf("%w: %q", errUnsafeArchive, h.Name)
	}
	path := filepath.Join(dir, name)
	switch h.Typeflag {
	case tar.TypeDir:
		return os.MkdirAll(path, 0o700)
	case tar.TypeReg:
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return err
		}
		f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, os.FileMode(h.Mode)&0o700)
		if err != nil {
			return err
		}
		_, err = io.Copy(f, r)
		return errors.Join(err, f.Close())
	}
	return fmt.Errorf("%w: %q has type %c", errUnsafeArchive, h.Name, h.Typeflag)
}

// RandomToken returns n random bytes as URL-safe base64.
func RandomToken(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return base64.RawURLEncoding.EncodeToString(b)
}

// ErrHost is wrapped when this machine lacks what the simulated instances need.
var ErrHost = errors.New("the simulated instances of garrison-dev cannot run on this machine")

// CheckHost checks for what the simulated instances use: Linux (process groups and
// /proc), and bash and curl on the boot scripts' PATH (garrison's install script).
func CheckHost() error {
	if runtime.GOOS != "linux" {
		return fmt.Errorf("%w: the simulation provider runs instances as Linux processes (this is %s)", ErrHost, runtime.GOOS)
	}
	for _, tool := range []string{"sh", "bash", "curl"} {
		if !onPath(tool, simprovider.DefaultBootPath) {
			return fmt.Errorf("%w: %s not found in %s (the runner install script needs it)", ErrHost, tool, simprovider.DefaultBootPath)
		}
	}
	return nil
}

// onPath reports whether an executable named name is in one of the directories of path.
func onPath(name, path string) bool {
	for _, dir := range filepath.SplitList(path) {
		if fi, err := os.Stat(filepath.Join(dir, name)); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return true
		}
	}
	return false
}

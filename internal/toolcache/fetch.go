package toolcache

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/provider"
)

// fetchOnce fetches d's archive into the cache unless it failed lately; a fetch of the
// same archive already under way is waited for instead of repeated.
func (c *Cache) fetchOnce(ctx context.Context, d provider.RunnerApplicationDownload) (garrison.FileObject, bool) {
	c.mu.Lock()
	if at, ok := c.failed[d.Filename]; ok && c.opts.Now().Sub(at) < c.opts.RetryAfter {
		c.mu.Unlock()
		return garrison.FileObject{}, false
	}
	if f, ok := c.busy[d.Filename]; ok {
		c.mu.Unlock()
		select {
		case <-f.done:
		case <-ctx.Done():
			return garrison.FileObject{}, false
		}
		held, err := c.held(ctx)
		if err != nil {
			return garrison.FileObject{}, false
		}
		return match(held, d)
	}
	f := &fetch{done: make(chan struct{})}
	c.busy[d.Filename] = f
	c.mu.Unlock()

	o, err := c.download(ctx, d)
	c.mu.Lock()
	delete(c.busy, d.Filename)
	if err != nil {
		c.failed[d.Filename] = c.opts.Now()
	} else {
		delete(c.failed, d.Filename)
	}
	c.mu.Unlock()
	close(f.done)
	if err != nil {
		c.opts.Log.WarnContext(ctx, "caching a runner archive; instances download it from the forge for now",
			"file", d.Filename, "url", d.DownloadURL, "err", err)
		return garrison.FileObject{}, false
	}
	c.opts.Log.InfoContext(ctx, "cached a runner archive", "file", d.Filename, "object", o.ID, "size", o.Size)
	return o, true
}

// download fetches d's archive to a temporary file, checks its size and checksum, and
// stores it as an object.
func (c *Cache) download(ctx context.Context, d provider.RunnerApplicationDownload) (garrison.FileObject, error) {
	if err := garrison.ValidateObjectName(d.Filename); err != nil {
		return garrison.FileObject{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, d.DownloadURL, nil)
	if err != nil {
		return garrison.FileObject{}, err
	}
	if d.TempDownloadToken != "" {
		req.Header.Set("Authorization", "Bearer "+d.TempDownloadToken)
	}
	resp, err := c.opts.Client.Do(req)
	if err != nil {
		return garrison.FileObject{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return garrison.FileObject{}, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	if c.opts.MaxSize > 0 && resp.ContentLength > c.opts.MaxSize {
		return garrison.FileObject{}, fmt.Errorf("%d bytes is more than the object store takes (%d)", resp.ContentLength, c.opts.MaxSize)
	}
	tmp, err := os.CreateTemp(c.opts.Dir, ".runner-tools-*")
	if err != nil {
		return garrison.FileObject{}, err
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	o, err := c.receive(resp.Body, tmp, d)
	if err != nil {
		return o, err
	}
	return c.opts.Store.CreateObjectContent(ctx, o, tmp)
}

// receive copies an archive to f, returning its object record.
func (c *Cache) receive(body io.Reader, f io.Writer, d provider.RunnerApplicationDownload) (garrison.FileObject, error) {
	h := sha256.New()
	head := &headBuffer{max: 512}
	var r io.Reader = body
	if c.opts.MaxSize > 0 {
		r = io.LimitReader(body, c.opts.MaxSize+1)
	}
	n, err := io.Copy(io.MultiWriter(f, h, head), r)
	switch {
	case err != nil:
		return garrison.FileObject{}, err
	case c.opts.MaxSize > 0 && n > c.opts.MaxSize:
		return garrison.FileObject{}, fmt.Errorf("more than the object store takes (%d bytes)", c.opts.MaxSize)
	}
	sum := hex.EncodeToString(h.Sum(nil))
	if d.SHA256Checksum != "" && !strings.EqualFold(sum, d.SHA256Checksum) {
		return garrison.FileObject{}, fmt.Errorf("checksum %s, the forge lists %s", sum, d.SHA256Checksum)
	}
	tags := []string{CategoryTag}
	if d.OS != "" {
		tags = append(tags, "os="+d.OS)
	}
	if d.Architecture != "" {
		tags = append(tags, "arch="+d.Architecture)
	}
	return garrison.FileObject{Name: d.Filename, Size: n, SHA256: sum, FileType: http.DetectContentType(head.b), Tags: tags,
		Description: "runner archive for " + d.OS + "/" + d.Architecture + ", from " + d.DownloadURL}, nil
}

// headBuffer keeps the first max bytes written to it (to sniff the type).
type headBuffer struct {
	b   []byte
	max int
}

func (h *headBuffer) Write(p []byte) (int, error) {
	if room := h.max - len(h.b); room > 0 {
		h.b = append(h.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

package toolcache

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/provider"
)

// CategoryTag marks the objects of the cache.
const CategoryTag = "category=runner-tools"

// PathPrefix is where Handler serves, under the controller's metadata URL path.
const PathPrefix = "/runner-tools/"

// DefaultRetryAfter is how long an archive that could not be fetched is not tried again.
const DefaultRetryAfter = time.Minute

// Downloads lists an entity's runner downloads (the forge hub does).
type Downloads interface {
	RunnerDownloads(ctx context.Context, e garrison.Entity) ([]provider.RunnerApplicationDownload, error)
}

// Objects is the part of the object store the cache uses; store.Objects satisfies it.
type Objects interface {
	Object(ctx context.Context, id uint) (garrison.FileObject, error)
	ListObjects(ctx context.Context) ([]garrison.FileObject, error)
	CreateObjectContent(ctx context.Context, o garrison.FileObject, content io.ReadSeeker) (garrison.FileObject, error)
	WriteObjectContent(ctx context.Context, id uint, w io.Writer) error
	Controller(ctx context.Context) (garrison.Controller, error)
}

// Options configure a Cache. Forge, Store and Dir are required.
type Options struct {
	Forge Downloads
	Store Objects
	// Dir holds the temporary files of downloads in progress.
	Dir string
	// MaxSize bounds an archive (the object store's limit); 0: no bound of its own.
	MaxSize int64
	// Client fetches the archives (nil: a client with a 10-minute time limit).
	Client *http.Client
	// RetryAfter is how long a failed archive is not tried again (0: DefaultRetryAfter).
	RetryAfter time.Duration
	Log        *slog.Logger
	Now        func() time.Time
}

// Cache is the runner-binary cache. Its methods are safe for concurrent use.
type Cache struct {
	opts Options

	mu     sync.Mutex           // guards the two maps
	busy   map[string]*fetch    // archives being fetched, by file name
	failed map[string]time.Time // when each archive last failed to be fetched
}

// fetch is one download in progress; done is closed when it ends.
type fetch struct {
	done chan struct{}
}

// New returns a Cache.
func New(opts Options) (*Cache, error) {
	if opts.Forge == nil || opts.Store == nil || opts.Dir == "" {
		return nil, errors.New("toolcache: Forge, Store and Dir are required")
	}
	if opts.Client == nil {
		opts.Client = &http.Client{Timeout: 10 * time.Minute}
	}
	if opts.RetryAfter <= 0 {
		opts.RetryAfter = DefaultRetryAfter
	}
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Cache{opts: opts, busy: map[string]*fetch{}, failed: map[string]time.Time{}}, nil
}

// RunnerDownloads lists e's runner downloads, fetching into the cache those it does not
// hold yet, and points every cached one at garrison.
func (c *Cache) RunnerDownloads(ctx context.Context, e garrison.Entity) ([]provider.RunnerApplicationDownload, error) {
	return c.list(ctx, e, true)
}

// Cached lists e's runner downloads, pointing those the cache holds at garrison; it
// fetches nothing.
func (c *Cache) Cached(ctx context.Context, e garrison.Entity) ([]provider.RunnerApplicationDownload, error) {
	return c.list(ctx, e, false)
}

func (c *Cache) list(ctx context.Context, e garrison.Entity, fill bool) ([]provider.RunnerApplicationDownload, error) {
	ds, err := c.opts.Forge.RunnerDownloads(ctx, e)
	if err != nil {
		return nil, err
	}
	base, err := c.baseURL(ctx)
	if err != nil || base == "" {
		return ds, err // without a metadata URL instances cannot reach the cache
	}
	held, err := c.held(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]provider.RunnerApplicationDownload, len(ds))
	for i, d := range ds {
		o, ok := match(held, d)
		if !ok && fill && d.DownloadURL != "" && d.Filename != "" {
			o, ok = c.fetchOnce(ctx, d)
		}
		if ok {
			d.DownloadURL = base + PathPrefix + strconv.FormatUint(uint64(o.ID), 10) + "/" + o.Name
			d.TempDownloadToken = ""
		}
		out[i] = d
	}
	return out, nil
}

// baseURL is the controller's metadata URL, without a trailing slash.
func (c *Cache) baseURL(ctx context.Context) (string, error) {
	ctrl, err := c.opts.Store.Controller(ctx)
	if err != nil {
		return "", fmt.Errorf("toolcache: controller: %w", err)
	}
	return strings.TrimRight(ctrl.MetadataURL, "/"), nil
}

// held lists the cached archives.
func (c *Cache) held(ctx context.Context) ([]garrison.FileObject, error) {
	all, err := c.opts.Store.ListObjects(ctx)
	if err != nil {
		return nil, fmt.Errorf("toolcache: objects: %w", err)
	}
	var out []garrison.FileObject
	for _, o := range all {
		if hasTag(o.Tags, CategoryTag) {
			out = append(out, o)
		}
	}
	return out, nil
}

// match finds the cached archive of d: same file name and, when the forge gives one,
// same checksum. The oldest wins when replicas fetched one twice.
func match(held []garrison.FileObject, d provider.RunnerApplicationDownload) (garrison.FileObject, bool) {
	var best garrison.FileObject
	found := false
	for _, o := range held {
		if o.Name != d.Filename || (d.SHA256Checksum != "" && !strings.EqualFold(o.SHA256, d.SHA256Checksum)) {
			continue
		}
		if !found || o.ID < best.ID {
			best, found = o, true
		}
	}
	return best, found
}

func hasTag(tags []string, tag string) bool {
	for _, t := range tags {
		if t == tag {
			return true
		}
	}
	return false
}

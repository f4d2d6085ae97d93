package testbed

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
)

// maxJITBody bounds the request body JITCounter reads.
const maxJITBody = 1 << 20

// JITCounter wraps the forge simulator and counts, by runner name, the JIT configs the
// forge handed out (generate-jitconfig on a repository, organization or enterprise, and a
// scale set's generatejitconfig): a runner name with two is an instance created twice.
type JITCounter struct {
	next http.Handler

	mu     sync.Mutex // guards byName
	byName map[string]int
}

// NewJITCounter counts the JIT configs next serves.
func NewJITCounter(next http.Handler) *JITCounter {
	return &JITCounter{next: next, byName: map[string]int{}}
}

func (c *JITCounter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(strings.ReplaceAll(r.URL.Path, "-", ""), "generatejitconfig") {
		c.next.ServeHTTP(w, r)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxJITBody))
	r.Body.Close()
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
	c.next.ServeHTTP(sw, r)
	if sw.status/100 != 2 {
		return
	}
	var req struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(body, &req) == nil && req.Name != "" {
		c.mu.Lock()
		c.byName[req.Name]++
		c.mu.Unlock()
	}
}

// Counts returns the JIT configs handed out per runner name.
func (c *JITCounter) Counts() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int, len(c.byName))
	for k, v := range c.byName {
		out[k] = v
	}
	return out
}

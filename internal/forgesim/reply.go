package forgesim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
)

// reply is what a route handler returns; the middleware renders it.
type reply struct {
	status int
	body   any    // JSON-encoded unless nil
	raw    []byte // sent as is when body is nil
	header http.Header
}

func ok(status int, body any) reply { return reply{status: status, body: body} }

func noContent() reply { return reply{status: http.StatusNoContent} }

// ghError is a GitHub basic-error body.
func ghError(status int, msg string) reply {
	return reply{status: status, body: map[string]any{
		"message":           msg,
		"documentation_url": "https://docs.github.com/rest",
		"status":            strconv.Itoa(status),
	}}
}

// ghValidation is a GitHub 422 validation-error body.
func ghValidation(resource, msg string) reply {
	return reply{status: http.StatusUnprocessableEntity, body: map[string]any{
		"message":           "Validation Failed",
		"errors":            []map[string]string{{"resource": resource, "code": "custom", "message": msg}},
		"documentation_url": "https://docs.github.com/rest",
	}}
}

// giteaError is a Gitea API error body.
func giteaError(status int, msg string) reply {
	return reply{status: status, body: map[string]any{"message": msg, "url": "https://docs.gitea.com/api"}}
}

func (rp reply) encode() ([]byte, error) {
	if rp.body == nil {
		return rp.raw, nil
	}
	b, err := json.Marshal(rp.body)
	if err != nil {
		return nil, fmt.Errorf("forgesim: encode reply: %w", err)
	}
	return b, nil
}

// decodeJSON reads a JSON request body into v.
func decodeJSON(r *http.Request, v any) error {
	b, err := readBody(r)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// page cuts items to one page given the page-number and page-size query parameters and
// returns the Link header for it.
func page[T any](r *http.Request, items []T, sizeParam string, def, maxSize int) ([]T, string) {
	q := r.URL.Query()
	per := atoiDefault(q.Get(sizeParam), def)
	if per <= 0 {
		per = def
	}
	per = min(per, maxSize)
	n := max(atoiDefault(q.Get("page"), 1), 1)
	last := max((len(items)+per-1)/per, 1)
	lo, hi := min((n-1)*per, len(items)), min(n*per, len(items))
	return items[lo:hi], linkHeader(r, n, last, sizeParam, per)
}

func linkHeader(r *http.Request, n, last int, sizeParam string, per int) string {
	link := func(p int, rel string) string {
		u := url.URL{Scheme: "http", Host: r.Host, Path: r.URL.Path}
		q := r.URL.Query()
		q.Set("page", strconv.Itoa(p))
		q.Set(sizeParam, strconv.Itoa(per))
		u.RawQuery = q.Encode()
		return fmt.Sprintf("<%s>; rel=%q", u.String(), rel)
	}
	var parts []string
	if n < last {
		parts = append(parts, link(n+1, "next"), link(last, "last"))
	}
	if n > 1 {
		parts = append(parts, link(1, "first"), link(n-1, "prev"))
	}
	out := ""
	for i, p := range parts {
		if i > 0 {
			out += ", "
		}
		out += p
	}
	return out
}

func atoiDefault(s string, def int) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return def
	}
	return n
}

func pathID(r *http.Request, name string) int64 {
	n, err := strconv.ParseInt(r.PathValue(name), 10, 64)
	if err != nil {
		return -1
	}
	return n
}

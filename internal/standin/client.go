package standin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Errors of the simulator calls, told apart with errors.Is.
var (
	// ErrUnauthorized: the simulator refused the credential (unknown registration token,
	// deleted runner).
	ErrUnauthorized = errors.New("standin: refused by the forge")
	// ErrServer: any other unexpected answer; worth retrying.
	ErrServer = errors.New("standin: unexpected forge answer")
)

// Job is the part of the simulator's job JSON the runner uses.
type Job struct {
	ID     int64    `json:"id"`
	Repo   string   `json:"repo"`
	Name   string   `json:"name"`
	Labels []string `json:"labels"`
	Status string   `json:"status"`
	// Duration is how long the job runs ("" when the job does not say).
	Duration string `json:"duration,omitempty"`
}

// client talks to the simulator's runner routes.
type client struct {
	http *http.Client
}

// maxBody caps what is read from an answer.
const maxBody = 1 << 20

// do sends a JSON request (body nil: none) with an optional bearer token and decodes a
// 2xx JSON answer into out (nil: discard). It returns the status code.
func (c client) do(ctx context.Context, method, target, bearer string, body, out any) (int, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, target, rd)
	if err != nil {
		return 0, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrServer, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return resp.StatusCode, fmt.Errorf("%w: reading answer: %w", ErrServer, err)
	}
	return resp.StatusCode, decodeAnswer(resp.StatusCode, b, out)
}

// decodeAnswer maps a status and body to the out value or an error.
func decodeAnswer(status int, b []byte, out any) error {
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return fmt.Errorf("%w: HTTP %d: %s", ErrUnauthorized, status, snippet(b))
	case status == http.StatusNoContent:
		return nil
	case status < 200 || status > 299:
		return fmt.Errorf("%w: HTTP %d: %s", ErrServer, status, snippet(b))
	case out == nil:
		return nil
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("%w: decoding answer: %w", ErrServer, err)
	}
	return nil
}

// snippet is a short printable excerpt of an answer body.
func snippet(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// acquire asks for a job: nil when none matches.
func (c client) acquire(ctx context.Context, id Identity) (*Job, error) {
	var j Job
	status, err := c.do(ctx, http.MethodPost, id.SimURL+"runners/"+url.PathEscape(id.Name)+"/acquire", id.Secret, nil, &j)
	if err != nil || status == http.StatusNoContent {
		return nil, err
	}
	return &j, nil
}

// start reports job id in progress.
func (c client) start(ctx context.Context, id Identity, jobID int64) error {
	_, err := c.do(ctx, http.MethodPost, fmt.Sprintf("%sjobs/%d/start", id.SimURL, jobID), id.Secret, nil, nil)
	return err
}

// complete finishes job id with conclusion.
func (c client) complete(ctx context.Context, id Identity, jobID int64, conclusion string) error {
	body := map[string]string{"conclusion": conclusion}
	_, err := c.do(ctx, http.MethodPost, fmt.Sprintf("%sjobs/%d/complete", id.SimURL, jobID), id.Secret, body, nil)
	return err
}

// registration is the simulator's answer to a registration.
type registration struct {
	ID     flexInt  `json:"id"`
	Name   string   `json:"name"`
	Secret string   `json:"secret"`
	Token  string   `json:"token"`
	Labels []string `json:"labels"`
}

// registerGitHub registers a runner with a GitHub registration token.
func (c client) registerGitHub(ctx context.Context, simURL, token, name string, labels []string, ephemeral bool) (registration, error) {
	var out registration
	body := map[string]any{"token": token, "name": name, "labels": labels, "ephemeral": ephemeral}
	_, err := c.do(ctx, http.MethodPost, simURL+"runners/register", "", body, &out)
	return out, err
}

// registerGitea calls the Gitea Register RPC at the forge root.
func (c client) registerGitea(ctx context.Context, root, token, name string, labels []string, ephemeral bool) (registration, error) {
	var out struct {
		Runner registration `json:"runner"`
	}
	body := map[string]any{"token": token, "name": name, "labels": labels, "ephemeral": ephemeral}
	_, err := c.do(ctx, http.MethodPost, root+"api/actions/runner.v1.RunnerService/Register", "", body, &out)
	if err == nil && out.Runner.Token == "" {
		err = fmt.Errorf("%w: registration without a token", ErrServer)
	}
	return out.Runner, err
}

// defaultHTTPClient bounds every call; loopback calls are fast.
var defaultHTTPClient = &http.Client{Timeout: 30 * time.Second}

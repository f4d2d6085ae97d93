package scaleset

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	gha "github.com/actions/scaleset"

	"github.com/garrison-ci/garrison"
)

// Session is an open message session of a scale set. It is plain data: a listener may
// store it and, after a restart, keep polling it or delete it by ID.
type Session struct {
	ID              string // a UUID
	ScaleSetID      int64
	OwnerName       string
	MessageQueueURL string // opaque; may carry a query
	QueueToken      string // JWT for the queue calls
	// QueueTokenExpires is the queue token's exp claim (zero when it has none).
	QueueTokenExpires time.Time
	// Statistics seed scaling before the first message.
	Statistics Statistics
}

func (c *Client) sessionFromWire(scaleSetID int64, w gha.RunnerScaleSetSession) (Session, error) {
	s := Session{
		ID: w.SessionID.String(), ScaleSetID: scaleSetID, OwnerName: w.OwnerName,
		MessageQueueURL: w.MessageQueueURL, QueueToken: w.MessageQueueAccessToken, Statistics: fromWireStats(w.Statistics),
	}
	if !garrison.ValidURL(s.MessageQueueURL) || s.QueueToken == "" {
		return Session{}, garrison.Errorf(garrison.EUnprocessable, "scaleset: session %s: no valid message queue URL or token", s.ID)
	}
	if exp, err := jwtExpiry(s.QueueToken); err == nil {
		s.QueueTokenExpires = exp
	}
	return s, nil
}

// CreateSession opens the message session of a scale set. While another session is open
// the service answers 409: ErrSessionConflict.
func (c *Client) CreateSession(ctx context.Context, scaleSetID int64, owner string) (Session, error) {
	var w gha.RunnerScaleSetSession
	r := request{op: "create session", method: http.MethodPost, want: http.StatusOK, kind: sessionCreateCall,
		body: map[string]string{"ownerName": owner}, out: &w}
	if err := c.adminCall(ctx, r, scaleSetPath(scaleSetID)+"/sessions", nil); err != nil {
		return Session{}, err
	}
	return c.sessionFromWire(scaleSetID, w)
}

// RefreshSession renews the queue token of a session (PATCH). A session that no longer
// exists is garrison.ErrNotFound.
func (c *Client) RefreshSession(ctx context.Context, scaleSetID int64, sessionID string) (Session, error) {
	var w gha.RunnerScaleSetSession
	r := request{op: "refresh session", method: http.MethodPatch, want: http.StatusOK, out: &w}
	if err := c.adminCall(ctx, r, sessionPath(scaleSetID, sessionID), nil); err != nil {
		return Session{}, err
	}
	return c.sessionFromWire(scaleSetID, w)
}

// DeleteSession closes a session by id (204), whoever opened it: this is how a listener
// takes over a scale set whose previous listener died. A missing session is
// garrison.ErrNotFound.
func (c *Client) DeleteSession(ctx context.Context, scaleSetID int64, sessionID string) error {
	r := request{op: "delete session", method: http.MethodDelete, want: http.StatusNoContent}
	return c.adminCall(ctx, r, sessionPath(scaleSetID, sessionID), nil)
}

func sessionPath(scaleSetID int64, sessionID string) string {
	return fmt.Sprintf("%s/sessions/%s", scaleSetPath(scaleSetID), url.PathEscape(sessionID))
}

// GetMessage long-polls the session's queue for the message after lastMessageID (0: from
// the start). It returns nil, nil when the service had none within its hold (202). An
// un-acked message comes again. maxCapacity is sent as X-ScaleSetMaxCapacity. A refused
// queue token is ErrTokenExpired: refresh the session (Queue does it).
func (c *Client) GetMessage(ctx context.Context, s Session, lastMessageID int64, maxCapacity int) (*Message, error) {
	u, err := url.Parse(s.MessageQueueURL)
	if err != nil {
		return nil, garrison.Errorf(garrison.EInvalid, "scaleset: message queue URL: %v", err)
	}
	if lastMessageID > 0 {
		q := u.Query()
		q.Set("lastMessageId", strconv.FormatInt(lastMessageID, 10))
		u.RawQuery = q.Encode()
	}
	var raw rawMessage
	var none bool
	r := request{op: "get message", method: http.MethodGet, url: u.String(), auth: "Bearer " + s.QueueToken,
		header: map[string]string{gha.HeaderScaleSetMaxCapacity: strconv.Itoa(maxCapacity)},
		want:   http.StatusOK, accepted: &none, out: &raw, kind: queueCall}
	if err := c.send(ctx, c.http, r); err != nil {
		return nil, err
	}
	if none {
		return nil, nil
	}
	msg, err := raw.decode()
	if err != nil {
		return nil, fmt.Errorf("scaleset: get message: %w", err)
	}
	return msg, nil
}

// DeleteMessage acknowledges a message (204) so that it is not delivered again.
func (c *Client) DeleteMessage(ctx context.Context, s Session, messageID int64) error {
	u, err := url.Parse(s.MessageQueueURL)
	if err != nil {
		return garrison.Errorf(garrison.EInvalid, "scaleset: message queue URL: %v", err)
	}
	u = u.JoinPath(strconv.FormatInt(messageID, 10))
	r := request{op: "delete message", method: http.MethodDelete, url: u.String(), auth: "Bearer " + s.QueueToken,
		want: http.StatusNoContent, kind: queueCall}
	return c.send(ctx, c.http, r)
}

// AcquireJobs asks for the jobs of JobAvailable messages (the GHES flow) and returns the
// request ids the scale set got. It uses the queue token.
func (c *Client) AcquireJobs(ctx context.Context, s Session, requestIDs []int64) ([]int64, error) {
	base, _, err := c.admin(ctx)
	if err != nil {
		return nil, err
	}
	u, err := serviceURL(base, scaleSetPath(s.ScaleSetID)+"/acquirejobs", nil)
	if err != nil {
		return nil, garrison.Errorf(garrison.EUnprocessable, "scaleset: acquire jobs: service URL %q: %v", base, err)
	}
	var out struct {
		Count int     `json:"count"`
		Value []int64 `json:"value"`
	}
	if requestIDs == nil {
		requestIDs = []int64{}
	}
	r := request{op: "acquire jobs", method: http.MethodPost, url: u, auth: "Bearer " + s.QueueToken,
		body: requestIDs, want: http.StatusOK, out: &out, kind: queueCall}
	if err := c.send(ctx, c.http, r); err != nil {
		return nil, err
	}
	return out.Value, nil
}

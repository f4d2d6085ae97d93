package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/garrison-ci/garrison/internal/apiclient"
)

// eventsCmd is `events`: the server's change events (GET /api/v1/ws/events), one JSON
// object per line. garm-cli calls it debug-events; that name is an alias.
func (a *app) eventsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "events",
		Aliases: []string{"debug-events"},
		Short:   "Stream change events (creates, updates and deletes) until interrupted",
		Long: "Streams the server's change events as JSON, one per line, until interrupted or the server\n" +
			"ends the session. Without flags every event is shown. --type and --operation narrow\n" +
			"them; --filters sends a subscription message verbatim, as garm-cli debug-events does:\n" +
			`  --filters '{"filters":[{"entity-type":"pool","operations":["update"]}]}'`,
		Args: cobra.NoArgs,
	}
	cmd.Flags().String("filters", "", "subscription message to send as is (JSON)")
	cmd.Flags().StringSlice("type", nil, "entity types to show (repository, pool, instance, job, ...)")
	cmd.Flags().StringSlice("operation", nil, "operations to show: create, update, delete")
	cmd.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, _ []string) error {
		msg, err := subscriptionMessage(cmd)
		if err != nil {
			return err
		}
		s, err := c.Stream(ctx, apiclient.EventsStream)
		if err != nil {
			return fmt.Errorf("failed to stream events: %w", err)
		}
		defer s.Close()
		if err := s.Send(msg); err != nil {
			return err
		}
		return a.copyFrames(ctx, s, a.stdout(cmd), writeEvent)
	})
	return cmd
}

// subscriptionMessage builds what events sends from its flags.
func subscriptionMessage(cmd *cobra.Command) ([]byte, error) {
	raw, _ := cmd.Flags().GetString("filters")
	types, _ := cmd.Flags().GetStringSlice("type")
	ops, _ := cmd.Flags().GetStringSlice("operation")
	if raw != "" {
		if len(types) > 0 || len(ops) > 0 {
			return nil, errors.New("--filters cannot be combined with --type or --operation")
		}
		if !json.Valid([]byte(raw)) {
			return nil, errors.New("--filters is not valid JSON")
		}
		return []byte(raw), nil
	}
	if len(types) == 0 && len(ops) > 0 {
		return nil, errors.New("--operation needs --type")
	}
	if len(types) == 0 {
		return []byte(`{"send-everything":true}`), nil
	}
	type filter struct {
		Type string   `json:"entity-type"`
		Ops  []string `json:"operations,omitempty"`
	}
	var sub struct {
		Filters []filter `json:"filters"`
	}
	for _, t := range types {
		sub.Filters = append(sub.Filters, filter{Type: t, Ops: ops})
	}
	return json.Marshal(sub)
}

// writeEvent prints one event. A frame that is not JSON is the server saying why it
// refused the subscription (EV-3): that ends the command with the server's words.
func writeEvent(w io.Writer, b []byte) error {
	if !json.Valid(b) {
		return fmt.Errorf("the server refused the subscription: %s", b)
	}
	_, err := fmt.Fprintf(w, "%s\n", b)
	return err
}

// copyFrames writes each frame of s with write until ctx ends or the server closes the
// stream (both a normal end), or write fails.
func (a *app) copyFrames(ctx context.Context, s *apiclient.Stream, w io.Writer, write func(io.Writer, []byte) error) error {
	stop := context.AfterFunc(ctx, func() { s.Close() })
	defer stop()
	for {
		b, err := s.Next()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, apiclient.ErrStreamClosed) {
				return nil
			}
			return fmt.Errorf("reading the stream: %w", err)
		}
		if err := write(w, b); err != nil {
			return err
		}
	}
}

package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/garrison-ci/garrison/internal/apiclient"
)

// Options are the dependencies of the client commands. The zero value uses
// the process's standard streams and environment.
type Options struct {
	// Stdout and Stderr receive the output; nil means the command's own
	// (cobra's OutOrStdout / ErrOrStderr).
	Stdout, Stderr io.Writer
	// Stdin is read for the password prompt; nil means os.Stdin. A prompt is
	// shown only when it is a terminal.
	Stdin io.Reader
	// ConfigDir overrides where profiles are kept (see the package doc).
	ConfigDir string
	// HTTPClient, when set, sends every API request (tests use the client
	// of an httptest.Server).
	HTTPClient *http.Client
	// Getenv reads environment variables; nil means os.Getenv.
	Getenv func(string) string
}

// Environment variables read by the client commands.
const (
	EnvConfigDir = "GARRISON_CONFIG_DIR" // overrides the configuration directory
	EnvPassword  = "GARRISON_PASSWORD"   // password for init, profile add and profile login
)

// app carries the options into the command constructors.
type app struct {
	opts Options
}

func (a *app) getenv(k string) string {
	if a.opts.Getenv != nil {
		return a.opts.Getenv(k)
	}
	return os.Getenv(k)
}

func (a *app) stdout(cmd *cobra.Command) io.Writer {
	if a.opts.Stdout != nil {
		return a.opts.Stdout
	}
	return cmd.OutOrStdout()
}

func (a *app) stderr(cmd *cobra.Command) io.Writer {
	if a.opts.Stderr != nil {
		return a.opts.Stderr
	}
	return cmd.ErrOrStderr()
}

func (a *app) stdin() io.Reader {
	if a.opts.Stdin != nil {
		return a.opts.Stdin
	}
	return os.Stdin
}

// Commands returns the client command tree, to be added to the root command
// with AddCommand. Each returned command carries the persistent flags
// --profile (default: the active profile) and --debug (log HTTP calls to
// stderr, never the token). Use Find to reach a group (for example
// Find(cmds, "provider")) and attach more subcommands; those can call
// NewClient to talk to the server of the selected profile.
func Commands(opts Options) []*cobra.Command {
	a := &app{opts: opts}
	cmds := []*cobra.Command{
		a.initCmd(),
		a.profileCmd(),
		a.controllerCmd(),
		a.forgeCmd(apiclient.GitHub),
		a.forgeCmd(apiclient.Gitea),
		a.legacyCredentialsCmd(),
		a.repoCmd(),
		a.orgCmd(),
		a.enterpriseCmd(),
		a.forgeInstanceCmd(),
		a.proxyCmd(),
		a.objectCmd(),
		a.poolCmd(),
		a.templateCmd(),
		a.scaleSetCmd(),
		a.runnerCmd(),
		a.jobCmd(),
		a.providerCmd(),
		a.metricsTokenCmd(),
		a.eventsCmd(),
		a.logsCmd(),
		a.topCmd(),
		a.replicaCmd(),
		a.claimCmd(),
	}
	for _, c := range cmds {
		c.PersistentFlags().String("profile", "", "profile to use (default: the active profile)")
		c.PersistentFlags().Bool("debug", false, "log HTTP calls to stderr")
	}
	a.addCompletions(cmds)
	return cmds
}

// Find returns the command reached from cmds by the names in path (for
// example Find(cmds, "github", "endpoint")), or nil.
func Find(cmds []*cobra.Command, path ...string) *cobra.Command {
	var cur *cobra.Command
	for i, name := range path {
		var next *cobra.Command
		var candidates []*cobra.Command
		if i == 0 {
			candidates = cmds
		} else {
			candidates = cur.Commands()
		}
		for _, c := range candidates {
			if c.Name() == name || c.HasAlias(name) {
				next = c
				break
			}
		}
		if next == nil {
			return nil
		}
		cur = next
	}
	return cur
}

// NewClient returns an API client for the profile selected by cmd's
// --profile flag (or the active profile), honouring --debug. It is meant for
// subcommands attached below the commands returned by Commands.
func NewClient(cmd *cobra.Command, opts Options) (*apiclient.Client, error) {
	a := &app{opts: opts}
	c, _, err := a.client(cmd)
	return c, err
}

// client loads the selected profile and returns a client for it.
func (a *app) client(cmd *cobra.Command) (*apiclient.Client, Profile, error) {
	store, err := a.store()
	if err != nil {
		return nil, Profile{}, err
	}
	name, _ := cmd.Flags().GetString("profile")
	p, err := store.profile(name)
	if err != nil {
		return nil, Profile{}, err
	}
	c, err := a.newClient(cmd, p.URL, p.Token)
	return c, p, err
}

// newClient returns a client for url with token, honouring --debug.
func (a *app) newClient(cmd *cobra.Command, url, token string) (*apiclient.Client, error) {
	var opts []apiclient.Option
	if a.opts.HTTPClient != nil {
		opts = append(opts, apiclient.WithHTTPClient(a.opts.HTTPClient))
	}
	if debug, _ := cmd.Flags().GetBool("debug"); debug {
		opts = append(opts, apiclient.WithDebug(a.stderr(cmd)))
	}
	return apiclient.New(url, token, opts...)
}

// runFunc is the body of a command.
type runFunc func(ctx context.Context, cmd *cobra.Command, args []string) error

// run adapts f to cobra's RunE: --format is checked before anything is sent,
// and usage is not printed for errors that happen after the arguments were
// accepted.
func run(f runFunc) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		cmd.SilenceUsage = true
		if _, err := outputFormat(cmd); err != nil {
			return err
		}
		if err := checkAgentFlags(cmd); err != nil {
			return err
		}
		ctx := cmd.Context()
		if ctx == nil {
			ctx = context.Background()
		}
		return f(ctx, cmd, args)
	}
}

// withClient is run for commands that talk to the server of the selected
// profile.
func (a *app) withClient(f func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, args []string) error) func(*cobra.Command, []string) error {
	return run(func(ctx context.Context, cmd *cobra.Command, args []string) error {
		c, _, err := a.client(cmd)
		if err != nil {
			return err
		}
		return f(ctx, cmd, c, args)
	})
}

// group returns a command that only holds subcommands.
func group(use, short string, aliases []string, subs ...*cobra.Command) *cobra.Command {
	c := &cobra.Command{Use: use, Short: short, Aliases: aliases}
	c.AddCommand(subs...)
	rejectUnknown(c)
	return c
}

// RejectUnknownSubcommands walks the tree under root and makes every command that only
// holds subcommands refuse an argument that names none of them, with the closest names
// as suggestions. Without it cobra prints such a command's help and succeeds, so a typo
// (`garrison pool lst`) exits 0. Without arguments the command still prints its help.
func RejectUnknownSubcommands(root *cobra.Command) {
	if root.HasSubCommands() && !root.Runnable() {
		rejectUnknown(root)
	}
	for _, c := range root.Commands() {
		RejectUnknownSubcommands(c)
	}
}

// rejectUnknown makes the group c refuse unknown subcommands and print its help when
// called alone.
func rejectUnknown(c *cobra.Command) {
	c.Args = unknownSubcommand
	c.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
}

// unknownSubcommand is the Args check of a group: cobra only reaches it when args[0]
// names no subcommand.
func unknownSubcommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		msg += "; did you mean " + quoteJoin(s) + "?"
	}
	return errors.New(msg + "\nRun '" + cmd.CommandPath() + " --help' for its commands.")
}

// quoteJoin joins names as "a", "b" or "c".
func quoteJoin(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

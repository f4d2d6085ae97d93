package cli

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// Password errors, told apart with errors.Is.
var (
	// ErrNoPassword: no --password, no $GARRISON_PASSWORD and no terminal to ask on.
	ErrNoPassword = errors.New("missing password: use --password or " + EnvPassword)
	// ErrPasswordMismatch: the password typed to confirm differs from the first.
	ErrPasswordMismatch = errors.New("the passwords do not match; nothing was changed, run the command again")
)

// password returns --password, else $GARRISON_PASSWORD, else what the user
// types at a prompt when stdin is a terminal (on any OS).
func (a *app) password(cmd *cobra.Command) (string, error) {
	return a.readPassword(cmd, false)
}

// newPassword is password for a password being chosen: the prompt asks twice and
// refuses two different answers.
func (a *app) newPassword(cmd *cobra.Command) (string, error) {
	return a.readPassword(cmd, true)
}

func (a *app) readPassword(cmd *cobra.Command, confirm bool) (string, error) {
	if pw, _ := cmd.Flags().GetString("password"); pw != "" {
		return pw, nil
	}
	if pw := a.getenv(EnvPassword); pw != "" {
		return pw, nil
	}
	fd, ok := terminalFD(a.stdin())
	if !ok {
		return "", ErrNoPassword
	}
	pw, err := prompt(a.stderr(cmd), fd, "Password: ")
	if err != nil {
		return "", err
	}
	if pw == "" {
		return "", errors.New("missing password")
	}
	if !confirm {
		return pw, nil
	}
	again, err := prompt(a.stderr(cmd), fd, "Confirm password: ")
	if err != nil {
		return "", err
	}
	if again != pw {
		return "", ErrPasswordMismatch
	}
	return pw, nil
}

// terminalFD returns the descriptor of r when r is a terminal.
func terminalFD(r io.Reader) (int, bool) {
	f, ok := r.(*os.File)
	if !ok {
		return 0, false
	}
	fd := int(f.Fd())
	return fd, term.IsTerminal(fd)
}

// prompt shows label on w and reads a line from the terminal fd without echo.
func prompt(w io.Writer, fd int, label string) (string, error) {
	fmt.Fprint(w, label)
	pw, err := term.ReadPassword(fd)
	fmt.Fprintln(w)
	if err != nil {
		return "", fmt.Errorf("read password: %w", err)
	}
	return string(pw), nil
}

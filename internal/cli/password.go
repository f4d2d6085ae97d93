package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
)

// password returns --password, else $GARRISON_PASSWORD, else what the user
// types at a prompt when stdin is a terminal.
func (a *app) password(cmd *cobra.Command) (string, error) {
	if pw, _ := cmd.Flags().GetString("password"); pw != "" {
		return pw, nil
	}
	if pw := a.getenv(EnvPassword); pw != "" {
		return pw, nil
	}
	f, ok := a.stdin().(*os.File)
	if !ok || !isTerminal(f) {
		return "", errors.New("missing password: use --password or " + EnvPassword)
	}
	fmt.Fprint(a.stderr(cmd), "Password: ")
	pw, err := readNoEcho(f)
	fmt.Fprintln(a.stderr(cmd))
	if err != nil {
		return "", fmt.Errorf("read password: %w", err)
	}
	if pw == "" {
		return "", errors.New("missing password")
	}
	return pw, nil
}

// readLine reads one line from r without its line ending.
func readLine(r io.Reader) (string, error) {
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil && !(errors.Is(err, io.EOF) && line != "") {
		return "", err
	}
	return strings.TrimRight(line, "\r\n"), nil
}

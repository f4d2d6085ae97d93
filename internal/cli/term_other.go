//go:build !linux

package cli

import (
	"errors"
	"os"
)

// isTerminal reports false: the prompt is only supported on Linux; use
// --password or GARRISON_PASSWORD elsewhere.
func isTerminal(*os.File) bool { return false }

func readNoEcho(*os.File) (string, error) {
	return "", errors.New("password prompt not supported on this platform")
}

// Command testtools runs a test bed's tools (internal/testbed/tool) and nothing else: the
// tests build it once (testbed.TestTools) and their wrapper scripts run it for every
// provider call and every runner, where the test binary itself, which links the whole
// server, would spend half a second of CPU starting each time (more under -race).
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/garrison-ci/garrison/internal/testbed/tool"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code, ok := tool.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	if !ok {
		fmt.Fprintf(os.Stderr, "testtools: no tool %q (want %s or %s)\n", os.Args[1:], tool.SimProvider, tool.StandinRunner)
		code = 2
	}
	os.Exit(code)
}

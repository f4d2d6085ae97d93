package main

import (
	"context"
	"fmt"
)

func runBenchIdle(context.Context, *benchEnv, *benchResult) error {
	return fmt.Errorf("idle: %w", errBenchNotDone)
}
func runBenchBacklog(context.Context, *benchEnv, *benchResult) error {
	return fmt.Errorf("backlog: %w", errBenchNotDone)
}
func runBenchScale(context.Context, *benchEnv, *benchResult) error {
	return fmt.Errorf("scale: %w", errBenchNotDone)
}
func runBenchRestart(context.Context, *benchEnv, *benchResult) error {
	return fmt.Errorf("restart: %w", errBenchNotDone)
}

// Package testbed assembles garrison offline: the forge simulator (internal/forgesim)
// serving a repository, the simulation provider (providers/sim) behind wrapper scripts,
// the stand-in runner served as the forge's runner download, a garrison server wired
// in-process (or started elsewhere) and an API client logged in to it. The demo
// (RunDemo, `garrison-dev demo`), the end-to-end tests and the benchmark scenarios
// (internal/bench) all run on a Bed.
//
// The simulated instances are processes on this machine (Linux, with sh, bash and curl:
// CheckHost); the wrapper scripts run Options.Tools with a tool name (RunTool): garrison-dev
// itself, or in tests the testtools program (TestTools), which links the tools alone.
package testbed

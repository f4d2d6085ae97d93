package bench

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// machineCPU is the machine-wide CPU time of /proc/stat's first line, in USER_HZ ticks
// summed over every CPU: what else ran beside the scenario shows in its figures.
type machineCPU struct {
	total, idle, steal int64 // idle counts iowait too
}

// readMachineCPU reads /proc/stat.
func readMachineCPU() (machineCPU, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return machineCPU{}, err
	}
	return parseMachineCPU(b)
}

// parseMachineCPU parses the aggregate "cpu" line of /proc/stat: user nice system idle
// iowait irq softirq steal [guest guest_nice] (guest time is inside user already).
func parseMachineCPU(stat []byte) (machineCPU, error) {
	line, _, _ := bytes.Cut(stat, []byte("\n"))
	f := bytes.Fields(line)
	if len(f) < 9 || string(f[0]) != "cpu" {
		return machineCPU{}, fmt.Errorf("/proc/stat: no aggregate cpu line in %.60q", line)
	}
	var v [8]int64
	for i := range v {
		n, err := strconv.ParseInt(string(f[i+1]), 10, 64)
		if err != nil || n < 0 {
			return machineCPU{}, fmt.Errorf("/proc/stat: cpu field %d: %q", i+1, f[i+1])
		}
		v[i] = n
	}
	m := machineCPU{idle: v[3] + v[4], steal: v[7]}
	for _, n := range v {
		m.total += n
	}
	return m, nil
}

// setMachine records the machine's busy and stolen share of all its CPUs' time between
// two readings, in percent.
func (r *Result) setMachine(before, after machineCPU) {
	total := after.total - before.total
	if total <= 0 {
		return
	}
	busy := total - (after.idle - before.idle) - (after.steal - before.steal)
	r.MachineBusyPercent = ptr(round1(100 * float64(busy) / float64(total)))
	r.MachineStealPercent = ptr(round1(100 * float64(after.steal-before.steal) / float64(total)))
}

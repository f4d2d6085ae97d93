package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/garrison-ci/garrison/internal/apiclient"
	"github.com/garrison-ci/garrison/internal/apiv1"
)

// demoScaleDownTimeout bounds the wait for the last instance to go.
const demoScaleDownTimeout = 60 * time.Second

// scaleDown sets the pools' min idle runners to 0 and disables them, asks garrison to
// delete the runners that are left (idle runners would otherwise wait out the
// reconciler's scale-down grace period) and waits until garrison has no instance.
func (d *demo) scaleDown(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, demoScaleDownTimeout)
	defer cancel()
	zero, off := uint(0), false
	for _, id := range d.poolIDs {
		if _, err := d.api.UpdatePool(ctx, id, apiv1.UpdatePoolParams{MinIdleRunners: &zero, Enabled: &off}); err != nil {
			return fmt.Errorf("scaling pool %s down: %w", id, err)
		}
	}
	fmt.Fprintln(d.out, "scaling down: pools disabled with min idle 0")
	asked := map[string]bool{}
	t := time.NewTicker(demoTick)
	defer t.Stop()
	for {
		insts, err := d.api.ListInstances(ctx)
		if err == nil && len(insts) == 0 {
			fmt.Fprintln(d.out, "scaled down: no instances left")
			return nil
		}
		if err == nil {
			d.deleteLeftovers(ctx, insts, asked)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w: instances still there %s after scaling down: %v", errDemoFailed, demoScaleDownTimeout, ctx.Err())
		case <-t.C:
		}
	}
}

// deleteLeftovers asks once for the deletion of each runner that is neither busy with a
// job (it goes when the job is done) nor on its way out.
func (d *demo) deleteLeftovers(ctx context.Context, insts []apiv1.Instance, asked map[string]bool) {
	for _, in := range insts {
		switch {
		case asked[in.Name], in.RunnerStatus == "active":
			continue
		case in.Status == "pending_delete", in.Status == "pending_force_delete", in.Status == "deleting":
			continue
		}
		err := d.api.DeleteInstance(ctx, in.Name, false, false)
		switch {
		case err == nil, apiclient.IsNotFound(err):
			asked[in.Name] = true
		case apiclient.IsConflict(err):
			// in transition: ask again on the next tick
		default:
			fmt.Fprintf(d.out, "  deleting %s: %v\n", in.Name, err)
		}
	}
}

// leaks is what the demo left behind, counted three ways.
type leaks struct {
	providerOnly int // simulation provider records without a garrison instance
	storeOnly    int // garrison instances without a provider record
	forgeOnly    int // runners registered on the forge without a garrison instance
	remaining    int // garrison instances left at all
	processes    int // live processes of simulated instances
}

func (l leaks) instances() int { return l.providerOnly + l.storeOnly + l.forgeOnly }

// countLeaks compares garrison's instances, the provider's records and the forge's
// runners, and looks for processes of simulated instances still alive.
func (d *demo) countLeaks(ctx context.Context) (leaks, error) {
	insts, err := d.api.ListInstances(ctx)
	if err != nil {
		return leaks{}, fmt.Errorf("listing instances: %w", err)
	}
	p, err := d.simProvider()
	if err != nil {
		return leaks{}, err
	}
	recs, err := p.ListInstances(ctx, "")
	if err != nil {
		return leaks{}, fmt.Errorf("listing the provider's instances: %w", err)
	}
	inStore, inProvider := map[string]bool{}, map[string]bool{}
	for _, in := range insts {
		inStore[in.Name] = true
	}
	l := leaks{remaining: len(insts), processes: d.liveProcesses()}
	for _, r := range recs {
		inProvider[r.Name] = true
		if !inStore[r.Name] {
			l.providerOnly++
		}
	}
	for name := range inStore {
		if !inProvider[name] {
			l.storeOnly++
		}
	}
	for _, rn := range d.sim.Runners() {
		if !inStore[rn.Name] {
			l.forgeOnly++
		}
	}
	return l, nil
}

// liveProcesses counts live processes started for the demo's simulated instances: those
// whose HOME is inside the provider's state directory (Linux /proc; 0 elsewhere).
func (d *demo) liveProcesses() int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	marker := []byte("\x00HOME=" + filepath.Join(d.path("sim-state"), "boot") + string(filepath.Separator))
	n := 0
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !bytes.Contains(append([]byte{0}, env...), marker) {
			continue
		}
		if !zombie(e.Name()) {
			n++
		}
	}
	return n
}

// zombie reports whether process pid has exited but was not reaped yet.
func zombie(pid string) bool {
	b, err := os.ReadFile(filepath.Join("/proc", pid, "stat"))
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(b, ')')
	f := bytes.Fields(b[i+1:])
	return len(f) == 0 || string(f[0]) == "Z" || string(f[0]) == "X"
}

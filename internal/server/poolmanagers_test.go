package server

import (
	"errors"
	"testing"

	"github.com/garrison-ci/garrison"
)

func TestPoolManagersStatus(t *testing.T) {
	p := newPoolManagers()
	if ok, why := p.Status("e1"); ok || why == "" {
		t.Errorf("before the reconciler runs: %v %q", ok, why)
	}
	p.running.Store(true)
	if ok, why := p.Status("e1"); !ok || why != "" {
		t.Errorf("running: %v %q", ok, why)
	}
	p.SetFailed("e1", "forge refused the credentials")
	if ok, why := p.Status("e1"); ok || why != "forge refused the credentials" {
		t.Errorf("failed: %v %q", ok, why)
	}
	if ok, _ := p.Status("e2"); !ok {
		t.Error("a failure of one entity leaked to another")
	}
	p.Clear("e1")
	if ok, _ := p.Status("e1"); !ok {
		t.Error("cleared failure still reported")
	}
	broken := garrison.Pool{ID: "p1", EntityID: "e1"}
	p.PoolStatus(broken, errors.New("no provider lxd"))
	p.PoolStatus(garrison.Pool{ID: "p2", EntityID: "e1"}, nil)
	if ok, why := p.Status("e1"); ok || why != "pool p1: no provider lxd" {
		t.Errorf("a healthy pool hid a broken one: %v %q", ok, why)
	}
	p.PoolStatus(broken, nil)
	if ok, why := p.Status("e1"); !ok {
		t.Errorf("repaired pool still reported: %q", why)
	}
}

package bench

import (
	"strings"
	"testing"
)

func TestParseMachineCPU(t *testing.T) {
	for _, tc := range []struct {
		name, stat string
		want       machineCPU
		err        string
	}{
		{name: "with guest fields", stat: "cpu  100 5 50 800 40 1 4 10 7 0\ncpu0 50 2 25 400 20 0 2 5 3 0\n",
			want: machineCPU{total: 1010, idle: 840, steal: 10}},
		{name: "eight fields", stat: "cpu 1 2 3 4 5 6 7 8\n", want: machineCPU{total: 36, idle: 9, steal: 8}},
		{name: "short", stat: "cpu 1 2 3\n", err: "no aggregate cpu line"},
		{name: "not the aggregate", stat: "cpu0 1 2 3 4 5 6 7 8\n", err: "no aggregate cpu line"},
		{name: "empty", stat: "", err: "no aggregate cpu line"},
		{name: "not a number", stat: "cpu 1 2 x 4 5 6 7 8\n", err: "cpu field 3"},
		{name: "negative", stat: "cpu 1 2 3 -4 5 6 7 8\n", err: "cpu field 4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseMachineCPU([]byte(tc.stat))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("= %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

func TestSetMachine(t *testing.T) {
	var r Result
	r.setMachine(machineCPU{total: 1000, idle: 600, steal: 10}, machineCPU{total: 1200, idle: 650, steal: 30})
	// 200 ticks: 50 idle, 20 stolen, 130 busy.
	if r.MachineBusyPercent == nil || *r.MachineBusyPercent != 65 || r.MachineStealPercent == nil || *r.MachineStealPercent != 10 {
		t.Fatalf("busy %v, steal %v", r.MachineBusyPercent, r.MachineStealPercent)
	}
	var none Result
	none.setMachine(machineCPU{total: 5}, machineCPU{total: 5})
	if none.MachineBusyPercent != nil {
		t.Fatal("a window without ticks gave a figure")
	}
	if _, err := readMachineCPU(); err != nil {
		t.Fatal(err)
	}
}

package cli

import (
	"maps"
	"strings"
	"testing"

	"github.com/garrison-ci/garrison/internal/apiv1"
)

var testScaleSet = apiv1.ScaleSet{
	ID: 7, ScaleSetID: 31, Name: "my-set", State: "created", ProviderName: "lxd", Image: "ubuntu", Flavor: "small",
	OSType: "linux", OSArch: "amd64", MaxRunners: 5, MinIdleRunners: 1, Enabled: true, DesiredRunnerCount: 3,
	RepoID: repoID, RepoName: "octo/hello", Endpoint: apiv1.ForgeEndpoint{Name: "github.com"},
	Tags: []apiv1.Tag{{ID: "t1", Name: "gpu"}}, GitHubRunnerGroup: "Default", StatusMessages: []apiv1.StatusMessage{},
	Instances: []apiv1.Instance{{Name: "garm-ss1", Status: "running", RunnerStatus: "active", ScaleSetID: 7}},
}

var scaleSetReplies = map[string]reply{
	"POST /repositories/" + repoID + "/scalesets": {body: testScaleSet},
	"POST /organizations/" + orgID + "/scalesets": {body: testScaleSet},
	"GET /scalesets": {body: []apiv1.ScaleSet{testScaleSet}},
	"GET /enterprises/" + entID + "/scalesets": {body: []apiv1.ScaleSet{testScaleSet}},
	"GET /scalesets/7":                         {body: testScaleSet},
	"PUT /scalesets/7":                         {body: testScaleSet},
	"DELETE /scalesets/7":                      {},
	"DELETE /instances/garm-idle":              {},
	"GET /scalesets/7/instances": {body: []apiv1.Instance{
		{Name: "garm-idle", Status: "running", RunnerStatus: "idle", ScaleSetID: 7},
		{Name: "garm-busy", Status: "running", RunnerStatus: "active", ScaleSetID: 7},
		{Name: "garm-new", Status: "creating", RunnerStatus: "pending", ScaleSetID: 7},
	}},
}

// scaleSetFlows are the `scaleset` commands with the requests garm-cli's own send
// (rest-api-2 §2.7): the same paths, queries and body keys.
func scaleSetFlows() []flow {
	return []flow{
		{name: "scaleset add", args: []string{"scaleset", "add", "--repo", repoID, "--provider-name", "lxd", "--name", "my-set",
			"--image", "ubuntu", "--flavor", "small", "--labels", "gpu,big", "--enabled", "--extra-specs", `{"a":1}`},
			calls: []want{post("/repositories/"+repoID+"/scalesets", "disable_update", "enable_shell", "enabled", "extra_specs",
				"flavor", "image", "labels", "max_runners", "min_idle_runners", "name", "os_arch", "os_type", "provider_name",
				"runner_bootstrap_timeout", "scale_set_id").
				with("name", `"my-set"`, "labels", `["gpu","big"]`, "scale_set_id", "0", "disable_update", "false",
					"max_runners", "5", "min_idle_runners", "1", "runner_bootstrap_timeout", "20", "enable_shell", "false")},
			stdout: []string{"my-set", "octo/hello", "garm-ss1 (running/active)"}},
		{name: "scaleset add org with group", args: []string{"scaleset", "add", "--org", orgID, "--provider-name", "lxd", "--name", "s",
			"--image", "i", "--flavor", "f", "--runner-group", "gpus", "--runner-prefix", "ci"},
			calls: []want{post("/organizations/"+orgID+"/scalesets", "disable_update", "enable_shell", "flavor",
				"github-runner-group", "image", "max_runners", "min_idle_runners", "name", "os_arch", "os_type", "provider_name",
				"runner_bootstrap_timeout", "runner_prefix", "scale_set_id").with("github-runner-group", `"gpus"`)}},
		{name: "scaleset list", args: []string{"scaleset", "list"}, calls: []want{get("/scalesets")},
			stdout: []string{"ID", "NAME", "DESIRED", "my-set", "created"}},
		{name: "scaleset list enterprise", args: []string{"scaleset", "list", "--enterprise", entID},
			calls: []want{get("/enterprises/" + entID + "/scalesets")}},
		{name: "scaleset show", args: []string{"scaleset", "show", "7"}, calls: []want{get("/scalesets/7")},
			stdout: []string{"Scale set ID", "31", "Desired runner count", "3", "Labels", "gpu"}},
		{name: "scaleset update", args: []string{"scaleset", "update", "7", "--max-runners", "9", "--runner-group", "g2", "--enabled=false"},
			calls: []want{put("/scalesets/7", "enable_shell", "enabled", "extended_state", "max_runners", "runner_group", "state").
				with("enable_shell", "null", "state", "null", "extended_state", "null", "max_runners", "9",
					"runner_group", `"g2"`, "enabled", "false")}},
		{name: "scaleset update clear proxy", args: []string{"scaleset", "update", "7", "--clear-proxy"},
			calls: []want{put("/scalesets/7", "enable_shell", "extended_state", "proxy_id", "state").with("proxy_id", "0")}},
		{name: "scaleset delete", args: []string{"scaleset", "delete", "7"}, calls: []want{del("/scalesets/7", "")}},
		{name: "scaleset runner list", args: []string{"scaleset", "runner", "list", "7"},
			calls: []want{get("/scalesets/7/instances")}, stdout: []string{"garm-idle", "garm-busy"}},
		{name: "scaleset runner list outdated", args: []string{"scaleset", "runner", "list", "7", "--outdated"},
			calls: []want{getq("/scalesets/7/instances", "outdatedOnly=true")}},
		{name: "scaleset runner rotate dry run", args: []string{"scaleset", "runner", "rotate", "7", "--dry-run"},
			calls: []want{get("/scalesets/7/instances")}, stdout: []string{"garm-idle"},
		},
		{name: "scaleset runner rotate", args: []string{"scaleset", "runner", "rotate", "7", "-f", "--yes-i-really-mean-it"},
			calls: []want{get("/scalesets/7/instances"),
				del("/instances/garm-idle", "bypassGHUnauthorized=false&forceRemove=true")},
			stdout: []string{"1 runner(s) removed"}},
	}
}

func TestScaleSetFlows(t *testing.T) {
	replies := maps.Clone(commonReplies)
	maps.Copy(replies, scaleSetReplies)
	for _, f := range scaleSetFlows() {
		t.Run(f.name, func(t *testing.T) {
			srv := newFakeServer(t, replies)
			e := newEnv(t).withProfile(t, srv)
			stdout, stderr, err := e.run(t, writeFixtures(t, f.args)...)
			if err != nil {
				t.Fatalf("%v failed: %v\nstderr: %s", f.args, err, stderr)
			}
			checkCalls(t, srv.recorded(), f.calls)
			for _, s := range f.stdout {
				if !strings.Contains(stdout, s) {
					t.Errorf("output lacks %q:\n%s", s, stdout)
				}
			}
		})
	}
}

// TestScaleSetBadArgs checks that bad arguments are refused before any request.
func TestScaleSetBadArgs(t *testing.T) {
	replies := maps.Clone(commonReplies)
	maps.Copy(replies, scaleSetReplies)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"scaleset", "show", "abc"}, `invalid scale set id "abc"`},
		{[]string{"scaleset", "delete", "99999999999"}, "invalid scale set id"},
		{[]string{"scaleset", "update", "7"}, "nothing to update"},
		{[]string{"scaleset", "runner", "rotate", "7"}, "add --yes-i-really-mean-it"},
		{[]string{"scaleset", "add", "--repo", repoID, "--provider-name", "lxd", "--name", "s", "--image", "i", "--flavor", "f",
			"--min-idle-runners", "9"}, "min_idle_runners cannot be larger than max_runners"},
		{[]string{"scaleset", "add", "--repo", repoID, "--provider-name", "lxd", "--name", "s", "--image", "i", "--flavor", "f",
			"--extra-specs", "{"}, "--extra-specs is not valid JSON"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			srv := newFakeServer(t, replies)
			e := newEnv(t).withProfile(t, srv)
			_, stderr, err := e.run(t, tc.args...)
			if err == nil || !strings.Contains(err.Error()+stderr, tc.want) {
				t.Fatalf("err %v, stderr %q; want %q", err, stderr, tc.want)
			}
			for _, c := range srv.recorded() {
				if c.Method != "GET" {
					t.Errorf("a bad command sent %s %s", c.Method, c.Path)
				}
			}
		})
	}
}

// Command broken is a deliberately non-conforming provider for the
// providertest tests. BROKEN_MODE selects how it misbehaves:
//
//   - badstatus: CreateInstance answers status "creating".
//   - sloppy: create works, but GetInstance prints garbage with exit 0,
//     ListInstances always prints [], and every delete exits 0.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
)

func main() {
	mode := os.Getenv("BROKEN_MODE")
	switch os.Getenv("GARM_COMMAND") {
	case "CreateInstance":
		var bi struct {
			Name string `json:"name"`
		}
		data, _ := io.ReadAll(os.Stdin)
		_ = json.Unmarshal(data, &bi)
		status := "running"
		if mode == "badstatus" {
			status = "creating"
		}
		fmt.Printf(`{"provider_id":"b-%s","name":%q,"status":%q}`, bi.Name, bi.Name, status)
	case "GetInstance":
		fmt.Print("OK! instance is fine")
	case "ListInstances":
		fmt.Print("[]")
	case "DeleteInstance":
		fmt.Print("garbage that should be ignored")
	case "GetVersion":
		fmt.Print("broken-1")
	case "StartInstance", "StopInstance", "RemoveAllInstances":
	default:
		fmt.Fprintln(os.Stderr, "unknown GARM_COMMAND")
		os.Exit(1)
	}
}

// Command sim is a simulation provider: its instances are JSON records in a
// state directory. See package simprovider for its configuration.
package main

import (
	"github.com/garrison-ci/garrison/provider/sdk"
	"github.com/garrison-ci/garrison/providers/sim/simprovider"
)

func main() { sdk.Main(simprovider.New) }

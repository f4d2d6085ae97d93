// Command incus is garrison's Incus (and LXD) provider executable. See
// package incusprovider for its configuration and README.md for details.
package main

import (
	"github.com/garrison-ci/garrison/provider/sdk"
	"github.com/garrison-ci/garrison/providers/incus/incusprovider"
)

func main() { sdk.Main(incusprovider.New) }

// Command docker is garrison's Docker provider executable. See package
// dockerprovider for its configuration and README.md for details.
package main

import (
	"github.com/garrison-ci/garrison/provider/sdk"
	"github.com/garrison-ci/garrison/providers/docker/dockerprovider"
)

func main() { sdk.Main(dockerprovider.New) }

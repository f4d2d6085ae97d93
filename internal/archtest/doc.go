// Package archtest holds the tests that keep garrison's package layering honest: the domain
// and the public provider packages import only the standard library, adapters never import
// each other, only internal/server wires concrete adapters together, cmd/ only wires
// commands to packages, and the production binary links none of the development kit.
package archtest

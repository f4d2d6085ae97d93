// Package archtest holds the test that keeps garrison's package layering honest: the domain
// and the public provider packages import only the standard library, adapters never import
// each other, and only cmd/ wires concrete adapters together.
package archtest

// Package hosttest holds what the op families' tests share: a builder of
// blocks and modules with test-only ops, a runner that compiles through
// package host, and the conformance corpus runner. Only tests import it.
//
// Place in the flow: test code above package host (it imports host, so no
// op family may import it outside its tests).
package hosttest

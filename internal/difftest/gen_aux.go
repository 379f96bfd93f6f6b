package difftest

import "math/rand/v2"

// The program-level draws of the StateRestore, OptimSteps and Concurrent
// families (an optimizer and its captures, learning rates and roll-backs
// between calls, the concurrent mode's plan) come from a stream of their
// own, so that switching these families off leaves a program as it was
// before they existed; their body instructions come from the main stream,
// as every op's do.

// aux returns the generator drawing from the families' stream.
func (g *gen) aux() *gen {
	if g.a == nil {
		a := *g
		a.r = rand.New(rand.NewPCG(g.p.Seed, 0x6a09e667f3bcc909))
		g.a = &a
	}
	return g.a
}

// rollBacks has some calls roll captured tensors back: the caller takes
// State before the call and restores it after (a checkpoint kept across a
// call that may write the tensor in place).
func (g *gen) rollBacks() {
	x := g.aux()
	if !g.f.StateRestore || len(g.p.Captures) == 0 || !x.chance(4) {
		return
	}
	for k := range g.p.Calls {
		for c := range g.p.Captures {
			if x.chance(2) {
				g.p.Calls[k].RollBack = append(g.p.Calls[k].RollBack, c)
			}
		}
	}
}

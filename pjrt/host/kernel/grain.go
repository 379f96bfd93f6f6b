package kernel

// ElementGrain is the smallest number of elements of an elementwise op of
// the given Elementwise.Cost worth a parallel chunk of its own: below it,
// handing work to another core costs more than it saves.
func ElementGrain(cost int) int {
	if cost < 1 {
		cost = 1
	}
	return max(1<<15/cost, 1<<10)
}

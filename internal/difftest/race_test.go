//go:build race

package difftest

// raceEnabled: under the race detector programs run several times slower,
// so TestPrograms runs fewer by default.
const raceEnabled = true

package pjrt_test

import (
	"strings"
	"testing"

	"github.com/xlajit/xlajit/pjrt"
)

// TestShardingTileProductOverflow: tile dims whose product overflows int64
// ([3, 6148914691236517206] wraps to 2, the number of devices listed) are
// an error from ParseSharding (plain, partially replicated and iota
// forms), Tiled and PartialTiled, not a slice-bounds panic or a sharding
// that claims 2^64 tiles.
func TestShardingTileProductOverflow(t *testing.T) {
	tile := []int64{3, 6148914691236517206}
	for _, text := range []string{
		"{devices=[3,6148914691236517206]0,1}",
		"{devices=[3,6148914691236517206]0,1 last_tile_dim_replicate}",
		"{devices=[2]<=[3,6148914691236517206]}",
		"{devices=[-1,-2]0,1}",
	} {
		if s, err := pjrt.ParseSharding(text); err == nil {
			t.Errorf("ParseSharding(%s) = %v", text, s)
		} else if !strings.Contains(err.Error(), "dims [") {
			t.Errorf("ParseSharding(%s): %v does not name the dims", text, err)
		}
	}
	for name, f := range map[string]func([]int64, []int64) (*pjrt.Sharding, error){"Tiled": pjrt.Tiled, "PartialTiled": pjrt.PartialTiled} {
		if s, err := f(tile, []int64{0, 1}); err == nil || !strings.Contains(err.Error(), "2^63-1") {
			t.Errorf("%s(%v, [0 1]) = %v, %v", name, tile, s, err)
		}
	}
	if s, err := pjrt.ParseSharding("{devices=[1,2]0,1}"); err != nil || s.String() != "{devices=[1,2]0,1}" {
		t.Errorf("a valid sharding: %v, %v", s, err)
	}
}

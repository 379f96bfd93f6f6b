package fx_test

import (
	"strings"
	"testing"

	"github.com/xlajit/xlajit/fx"
)

// Placeholders of SPMD inputs print and parse their sharding.
func TestPlaceholderShardingRoundTrip(t *testing.T) {
	const text = "%arg0 : f32[8,6] = placeholder[arg 0] sharding={devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}\n" +
		"%capture0 : f32[6] = placeholder[capture 0] sharding={replicated}\n" +
		"%add_1 : f32[8,6] = Add(%arg0, %arg0)\n" +
		"output(%add_1)\n"
	g, err := fx.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	if s := g.Placeholders()[0].Sharding; s == nil || s.String() != "{devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}" {
		t.Errorf("parsed sharding %v", s)
	}
	if g.String() != text {
		t.Errorf("print(parse(text)) differs:\n%s", g.String())
	}
	// The last: tile dims whose product wraps to 2 in int64 (a panic
	// before the product was checked).
	for _, bad := range []string{"sharding={devices=[2]0}", "sharding={replicated", "sharding={devices=[3,6148914691236517206]0,1 last_tile_dim_replicate}"} {
		src := strings.Replace(text, "sharding={replicated}", bad, 1)
		if _, err := fx.Parse(src); err == nil {
			t.Errorf("%s parsed", bad)
		}
	}
}

package spmd_test

import (
	"fmt"

	"github.com/xlajit/xlajit/spmd"
)

func ExampleMesh_Sharding() {
	mesh := spmd.MustMesh([]int{0, 1, 2, 3}, []int{2, 2}, "data", "model")
	for _, spec := range [][]any{{"data", "model"}, {"model", "data"}, {"data", nil}, {nil, "model"}, {[]string{"data", "model"}, nil}, {nil, nil}} {
		s, _ := mesh.Sharding(2, spec...)
		fmt.Printf("%-22s %-10s %s\n", fmt.Sprint(spec), spmd.Type(s), s)
	}
	// Output:
	// [data model]           TILED      {devices=[2,2]0,1,2,3}
	// [model data]           TILED      {devices=[2,2]0,2,1,3}
	// [data <nil>]           PARTIAL    {devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}
	// [<nil> model]          PARTIAL    {devices=[1,2,2]0,2,1,3 last_tile_dim_replicate}
	// [[data model] <nil>]   TILED      {devices=[4,1]0,1,2,3}
	// [<nil> <nil>]          REPLICATED {replicated}
}

func ExampleVisualize() {
	mesh := spmd.MustMesh([]int{0, 1, 2, 3}, []int{2, 2}, "data", "model")
	s, _ := mesh.Sharding(2, "model", "data")
	fmt.Print(spmd.Visualize(s, []int64{8, 6}))
	// Output:
	// ┌──────────────────┬──────────────────┐
	// │ dev 0 [0:4][0:3] │ dev 2 [0:4][3:6] │
	// ├──────────────────┼──────────────────┤
	// │ dev 1 [4:8][0:3] │ dev 3 [4:8][3:6] │
	// └──────────────────┴──────────────────┘
}

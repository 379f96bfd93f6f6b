package partitioner_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/fx"
	"github.com/xlajit/xlajit/lazy"
	"github.com/xlajit/xlajit/partitioner"
)

var update = flag.Bool("update", false, "rewrite golden files")

// A device chain, a host op on it, device ops on the host result and
// independent device work that needs no host result.
const mixed = `%arg0 : f32[6] = placeholder[arg 0]
%capture0 : f32[6] = placeholder[capture 0]
%mul_1 : f32[6] = Mul(%arg0, %capture0)
%gt_1 : i1[6] = Compare(%mul_1, %arg0, dir="GT")
%nonzero_1 : i64[2,1] = NonZero(%gt_1)
%cast_1 : f32[2,1] = Cast(%nonzero_1, dtype=dtype(f32))
%constant_1 : f32[] = Constant(value=lit(f32[], [10.0]))
%broadcast_1 : f32[2,1] = Broadcast(%constant_1, dims=[2, 1], bdims=[])
%mul_2 : f32[2,1] = Mul(%cast_1, %broadcast_1)
%exp_1 : f32[6] = Exp(%arg0)
output(%mul_2, %exp_1; %capture0 <- %mul_1)
`

func discoverAndPartition(t testing.TB, text string) (*fx.Graph, *partitioner.Plan) {
	g, err := fx.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Lint(); err != nil {
		t.Fatal(err)
	}
	host := partitioner.Discover(g, lazy.DefaultDevice())
	plan, err := partitioner.Partition(g, host)
	if err != nil {
		t.Fatal(err)
	}
	return g, plan
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (run go test -update to accept):\n--- got\n%s--- want\n%s", name, got, want)
	}
}

func describePlan(p *partitioner.Plan) string {
	var b strings.Builder
	for _, st := range p.Stages {
		var ins, outs []string
		for _, r := range st.Inputs {
			ins = append(ins, "%"+r.Node.Name)
		}
		for _, r := range st.Outputs {
			outs = append(outs, "%"+r.Node.Name)
		}
		if st.Fallback != nil {
			fmt.Fprintf(&b, "host %s(%s) -> %s\n", st.Fallback.OpName(), strings.Join(ins, ", "), strings.Join(outs, ", "))
			continue
		}
		fmt.Fprintf(&b, "device %d (%s) -> %s\n%s", st.Partition, strings.Join(ins, ", "), strings.Join(outs, ", "), st.Device.Format(false))
	}
	return b.String()
}

func TestPartitionGolden(t *testing.T) {
	g, plan := discoverAndPartition(t, mixed)
	if plan.DevicePartitions != 2 {
		t.Errorf("want 2 device partitions, got %d", plan.DevicePartitions)
	}
	golden(t, "mixed.fx", g.Format(false)+"\n"+describePlan(plan)+"\nsplit:\n"+plan.Split.Format(false))
}

// TestSplitGraphRunsLikeTheGraph: the split graph (one call per stage) is
// a valid graph of the stages in order, and interpreting it gives what
// interpreting the original graph gives, mutations included.
func TestSplitGraphRunsLikeTheGraph(t *testing.T) {
	g, plan := discoverAndPartition(t, mixed)
	if err := plan.Split.Lint(); err != nil {
		t.Fatal(err)
	}
	for i, st := range plan.Stages {
		if st.Node == nil || st.Node.Partition != st.Partition || (st.Fallback == nil) != (st.Node.Sub != nil) {
			t.Errorf("stage %d has node %v", i, st.Node)
		}
	}
	// Host ops run through their kernels, subgraphs through an
	// interpreter of their own, other ops record IR.
	var call func(n *fx.Node, args []*lazy.Tensor) ([]*lazy.Tensor, error)
	call = func(n *fx.Node, args []*lazy.Tensor) (res []*lazy.Tensor, err error) {
		switch {
		case n.Sub != nil:
			res, _, err = (&fx.Interpreter{G: n.Sub, Call: call}).Run(args, nil)
		case n.Op.Lower == nil:
			res, err = lazy.RunGoKernelTensors(lazy.DefaultDevice(), n.Op, n.Attrs, args)
		default:
			err = lazy.Try(func() { res = lazy.Record(n.Op, n.Attrs, args...) })
		}
		return res, err
	}
	run := func(g *fx.Graph) string {
		x := lazy.FromSlice([]float32{-2, 1, 0.5, 3, -1, 2})
		c := lazy.FromSlice([]float32{1, 1, 3, 1, 1, 2}) // two products exceed x: NonZero gives i64[2,1] as traced
		outs, muts, err := (&fx.Interpreter{G: g, Call: call}).Run([]*lazy.Tensor{x}, []*lazy.Tensor{c})
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(append(outs, muts...))
	}
	if a, b := run(g), run(plan.Split); a != b {
		t.Errorf("graph gives %s, split graph %s", a, b)
	}
}

func TestPartitionDeterministic(t *testing.T) {
	_, a := discoverAndPartition(t, mixed)
	for i := 0; i < 5; i++ {
		_, b := discoverAndPartition(t, mixed)
		if describePlan(a) != describePlan(b) {
			t.Fatal("partitioning is not deterministic")
		}
	}
}

// TestStagesRespectDependencies checks on random graphs that every stage
// only reads placeholders and values of earlier stages (no cycle, no use
// before definition).
func TestStagesRespectDependencies(t *testing.T) {
	for seed := int64(1); seed <= 30; seed++ {
		g, host := randomGraph(seed, 120, 8)
		plan, err := partitioner.Partition(g, host)
		if err != nil {
			t.Fatal(err)
		}
		defined := map[fx.Ref]bool{}
		for _, n := range g.Placeholders() {
			defined[fx.Ref{Node: n}] = true
		}
		for si, st := range plan.Stages {
			for _, in := range st.Inputs {
				if !defined[in] {
					t.Fatalf("seed %d: stage %d reads %%%s before it is computed", seed, si, in.Node.Name)
				}
			}
			for _, o := range st.Outputs {
				defined[o] = true
			}
		}
		for _, r := range g.Output().Args {
			if r.Node.Kind == fx.Call && !defined[r] {
				t.Fatalf("seed %d: output %%%s never computed", seed, r.Node.Name)
			}
		}
	}
}

// randomGraph builds an f32[4] graph of n calls, k of them host nodes,
// each call reading one or two earlier values.
func randomGraph(seed int64, n, k int) (*fx.Graph, map[*fx.Node]bool) {
	r := uint64(seed)*0x9E3779B97F4A7C15 + 1
	next := func(m int) int {
		r ^= r << 13
		r ^= r >> 7
		r ^= r << 17
		return int(r % uint64(m))
	}
	s := lazy.NewShape(lazy.F32, 4)
	g := &fx.Graph{}
	x := &fx.Node{Name: "arg0", Kind: fx.Placeholder, Shapes: []lazy.Shape{s}}
	g.Nodes = append(g.Nodes, x)
	host := map[*fx.Node]bool{}
	var calls []*fx.Node
	for i := 0; i < n; i++ {
		pick := func() fx.Ref {
			if len(calls) == 0 || next(4) == 0 {
				return fx.Ref{Node: x}
			}
			return fx.Ref{Node: calls[next(len(calls))]}
		}
		c := &fx.Node{Name: fmt.Sprintf("add_%d", i), Kind: fx.Call, Op: lazy.LookupOp("Add"), Args: []fx.Ref{pick(), pick()}, Shapes: []lazy.Shape{s}}
		if i%(n/k) == n/k/2 {
			c.Op, c.Name, c.Args = lazy.LookupOp("Neg"), fmt.Sprintf("neg_%d", i), c.Args[:1]
			host[c] = true
		}
		calls = append(calls, c)
		g.Nodes = append(g.Nodes, c)
	}
	out := &fx.Node{Name: "output", Kind: fx.Output, Args: []fx.Ref{{Node: calls[len(calls)-1]}, {Node: calls[len(calls)/2]}}}
	g.Nodes = append(g.Nodes, out)
	g.Renumber()
	return g, host
}

func TestDiscoverLeavesCountersAlone(t *testing.T) {
	g, err := fx.Parse(mixed)
	if err != nil {
		t.Fatal(err)
	}
	before := lazy.CounterSnapshot()
	host := partitioner.Discover(g, lazy.DefaultDevice())
	after := lazy.CounterSnapshot()
	for k, v := range after {
		if v != before[k] {
			t.Errorf("counter %s changed: %d -> %d", k, before[k], v)
		}
	}
	var names []string
	for n := range host {
		names = append(names, n.Name)
	}
	if len(names) != 1 || names[0] != "nonzero_1" {
		t.Errorf("host nodes %v, want [nonzero_1]", names)
	}
}

func BenchmarkPartition1000Nodes10Host(b *testing.B) {
	g, host := randomGraph(7, 1000, 10)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := partitioner.Partition(g, host); err != nil {
			b.Fatal(err)
		}
	}
}

// Partition of a malformed graph (no output node, an operand that is not
// a node of the graph before its use) is an error naming the problem, not
// a nil dereference or an index out of range.
func TestPartitionRejectsMalformedGraphs(t *testing.T) {
	try := func(name string, g *fx.Graph, want string) {
		t.Helper()
		defer func() {
			if p := recover(); p != nil {
				t.Errorf("%s: panic %v", name, p)
			}
		}()
		if _, err := partitioner.Partition(g, nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want one containing %q", name, err, want)
		}
	}
	try("empty graph", &fx.Graph{}, "no output")
	try("nil graph", nil, "no output")
	g, err := fx.Parse(mixed)
	if err != nil {
		t.Fatal(err)
	}
	g.Nodes = g.Nodes[:len(g.Nodes)-1]
	try("no output", g, "no output")

	g, _ = fx.Parse(mixed)
	other, _ := fx.Parse(mixed)
	g.Nodes[3].Args[0].Node = other.Nodes[2] // %gt_1 reads another graph's %mul_1
	try("foreign operand", g, "%gt_1")
}

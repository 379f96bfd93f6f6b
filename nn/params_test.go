package nn

import (
	"slices"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/lazy"
)

type blockT struct {
	Wqkv *lazy.Tensor
	Norm *LayerNorm `nn:"norm"`
}

type netT struct {
	Embed  *Embedding `nn:"embed"`
	Blocks []*blockT
	Heads  map[string]*Linear
	Tied   *lazy.Tensor
	hidden *lazy.Tensor
	Skip   *lazy.Tensor `nn:"-"`
	BN     *BatchNorm   `nn:"bn"`
	Drop   Dropout
	Any    any
	Nil    *Linear
	Self   *netT
}

func newNetT() *netT {
	n := &netT{
		Embed:  NewEmbedding(5, 4),
		Blocks: []*blockT{{Wqkv: lazy.Zeros(lazy.F32, 4, 12), Norm: NewLayerNorm([]int64{4})}, {Wqkv: lazy.Zeros(lazy.F32, 4, 12), Norm: NewLayerNorm([]int64{4}, NoBias())}},
		Heads:  map[string]*Linear{"b": NewLinear(4, 2), "a": NewLinear(4, 3, NoBias())},
		hidden: lazy.Zeros(lazy.F32, 1),
		Skip:   lazy.Zeros(lazy.F32, 1),
		BN:     NewBatchNorm1d(4),
		Drop:   Dropout{P: 0.5},
		Any:    NewLinear(2, 2),
	}
	n.Tied = n.Embed.Weight
	n.Self = n // a cycle
	return n
}

// TestParamNames checks the names, order, tags, buffers, dedup of tied
// tensors, map key order, unexported fields, interfaces and cycles.
func TestParamNames(t *testing.T) {
	n := newNetT()
	want := []string{"embed.weight", "Blocks.0.Wqkv", "Blocks.0.norm.weight", "Blocks.0.norm.bias", "Blocks.1.Wqkv", "Blocks.1.norm.weight",
		"Heads.a.weight", "Heads.b.weight", "Heads.b.bias", "hidden", "bn.weight", "bn.bias", "Any.weight", "Any.bias"}
	if got := Params(n).Names(); !slices.Equal(got, want) {
		t.Errorf("Params names\n got %v\nwant %v", got, want)
	}
	if got := Buffers(n).Names(); !slices.Equal(got, []string{"bn.running_mean", "bn.running_var", "bn.num_batches_tracked"}) {
		t.Errorf("Buffers names %v", got)
	}
	st := State(n)
	if st.Get("Tied") != n.Embed.Weight || st.Get("embed.weight") != n.Embed.Weight {
		t.Error("State must list a tied tensor under both names")
	}
	if st.Get("Skip") != nil {
		t.Error(`a field tagged nn:"-" was listed`)
	}
	if c := Params(n).Count(); c != 20+2*48+4+4+4+12+8+2+1+4+4+4+2 {
		t.Errorf("Count = %d", c)
	}
	if s := Params(n).String(); !strings.Contains(s, "Blocks.0.Wqkv") || !strings.Contains(s, "f32[4,12]") {
		t.Errorf("String = %q", s)
	}
}

// TestSetTraining switches BatchNorm and Dropout (by pointer and as an
// addressable value field) and leaves everything else alone.
func TestSetTraining(t *testing.T) {
	n := newNetT()
	SetTraining(n, false)
	if n.BN.Training || n.Drop.Training {
		t.Errorf("after SetTraining(false): bn %v, dropout %v", n.BN.Training, n.Drop.Training)
	}
	SetTraining(n, true)
	if !n.BN.Training || !n.Drop.Training {
		t.Errorf("after SetTraining(true): bn %v, dropout %v", n.BN.Training, n.Drop.Training)
	}
}

func TestStateDictMatchesPyTorchNames(t *testing.T) {
	got := State(NewMultiHeadAttention(8, 2)).Names()
	want := []string{"in_proj_weight", "in_proj_bias", "out_proj.weight", "out_proj.bias"}
	if !slices.Equal(got, want) {
		t.Errorf("MultiHeadAttention state %v, want %v", got, want)
	}
	got = State(NewBatchNorm2d(3)).Names()
	want = []string{"weight", "bias", "running_mean", "running_var", "num_batches_tracked"}
	if !slices.Equal(got, want) {
		t.Errorf("BatchNorm state %v, want %v", got, want)
	}
}

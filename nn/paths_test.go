package nn

import (
	"reflect"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/jit"
	"github.com/xlajit/xlajit/lazy"
)

// The names nn gives a model's tensors are the paths jit prints for them
// (Explain's guard, the replaced-field warning) without the "arg N."
// prefix: both come from jit.FieldPath, IndexPath and KeyPath.

type pathShared struct{ Shared *lazy.Tensor }

type pathBlock struct {
	Attn  *Linear
	Scale *lazy.Tensor `nn:"scale"`
	Skip  *lazy.Tensor `nn:"-"`
}

type pathModel struct {
	pathShared // promoted: its fields are named as the outer struct's
	Blocks     []*pathBlock
	Pair       [2]*lazy.Tensor
	Norm       *BatchNorm `nn:"norm"`
	Out        Linear     `nn:"out"`
}

func newPathModel() *pathModel {
	m := &pathModel{pathShared: pathShared{Shared: lazy.Ones(lazy.F32, 3)}, Norm: NewBatchNorm1d(3), Out: *NewLinear(3, 2)}
	for range 2 {
		m.Blocks = append(m.Blocks, &pathBlock{Attn: NewLinear(3, 3), Scale: lazy.Ones(lazy.F32, 3), Skip: lazy.Ones(lazy.F32, 1)})
	}
	m.Pair = [2]*lazy.Tensor{lazy.Ones(lazy.F32, 3), lazy.Ones(lazy.F32, 3)}
	return m
}

func TestNamesArePathsJitPrints(t *testing.T) {
	m := newPathModel()
	state := State(m)
	want := []string{"Shared", "Blocks.0.Attn.weight", "Blocks.0.Attn.bias", "Blocks.0.scale",
		"Blocks.1.Attn.weight", "Blocks.1.Attn.bias", "Blocks.1.scale", "Pair.0", "Pair.1",
		"norm.weight", "norm.bias", "norm.running_mean", "norm.running_var", "norm.num_batches_tracked",
		"out.weight", "out.bias"}
	if got := state.Names(); !reflect.DeepEqual(got, want) {
		t.Fatalf("State names = %v, want %v", got, want)
	}
	f := jit.Compile(func(m *pathModel, x *lazy.Tensor) *lazy.Tensor { return m.Out.Forward(x.Mul(m.Shared)) })
	f(m, lazy.Ones(lazy.F32, 4, 3)).Float32s()
	ex := jit.Explain(f)
	for _, p := range state {
		entry := "arg 0." + p.Name + "=" + p.Tensor.Shape().String()
		if !strings.Contains(ex, entry) {
			t.Errorf("Explain has no %q:\n%s", entry, ex)
		}
	}
	// Every tensor jit guards is named as nn names it (Skip, tagged "-",
	// keeps its Go name in jit and is no parameter).
	for _, item := range strings.Split(ex, ", ") {
		path, val, ok := strings.Cut(item, "=")
		if !ok || !strings.HasPrefix(val, "f32[") || !strings.HasPrefix(path, "arg 0.") {
			continue
		}
		path = path[strings.LastIndex(path, "arg 0."):]
		name := strings.TrimPrefix(path, "arg 0.")
		if state.Get(name) == nil && !strings.HasSuffix(name, ".Skip") {
			t.Errorf("jit guards %s, which is no name of nn.State", path)
		}
	}
}

func TestReplacedParamWarningUsesItsName(t *testing.T) {
	slots := map[string]func(m *pathModel) **lazy.Tensor{
		"Blocks.1.Attn.weight": func(m *pathModel) **lazy.Tensor { return &m.Blocks[1].Attn.Weight },
		"Shared":               func(m *pathModel) **lazy.Tensor { return &m.Shared },
		"Pair.1":               func(m *pathModel) **lazy.Tensor { return &m.Pair[1] },
		"norm.running_mean":    func(m *pathModel) **lazy.Tensor { return &m.Norm.RunningMean },
	}
	for name, slot := range slots {
		m := newPathModel()
		if State(m).Get(name) != *slot(m) {
			t.Fatalf("%s is not the tensor nn names so", name)
		}
		f, _ := jit.CompileE(func(m *pathModel, g *lazy.Tensor) (*lazy.Tensor, error) {
			v := slot(m)
			*v = (*v).Sub(g) // should be (*v).Assign(...)
			return g.Sum(), nil
		}, jit.FullGraph())
		_, err := f(m, lazy.Ones(lazy.F32))
		if err == nil || !strings.Contains(err.Error(), "arg 0."+name+" ") {
			t.Errorf("%s: err = %v, want the replaced tensor named arg 0.%s", name, err, name)
		}
	}
}

func TestPathElements(t *testing.T) {
	type inner struct{ X *lazy.Tensor }
	type s struct {
		inner
		Tagged   *lazy.Tensor `nn:"tagged,buffer"`
		Untagged *lazy.Tensor `nn:",buffer"`
		Hidden   *lazy.Tensor `nn:"-"`
		Named    inner        `nn:"named"`
	}
	ty := reflect.TypeOf(s{})
	for i, want := range []string{"p", "p.tagged", "p.Untagged", "p.Hidden", "p.named"} {
		if got := jit.FieldPath("p", ty.Field(i)); got != want {
			t.Errorf("FieldPath(p, %s) = %q, want %q", ty.Field(i).Name, got, want)
		}
	}
	if got := jit.FieldPath("", ty.Field(1)); got != "tagged" {
		t.Errorf("FieldPath of the root = %q, want tagged", got)
	}
	if got := jit.IndexPath("", 3) + " " + jit.IndexPath("a", 3) + " " + jit.KeyPath("a", "k"); got != "3 a.3 a.k" {
		t.Errorf("IndexPath, KeyPath = %q", got)
	}
}

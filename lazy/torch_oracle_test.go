package lazy

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/xlajit/xlajit/hlo"
)

// The PyTorch oracle: testdata/torch/cases.jsonl holds cases computed by
// PyTorch (scripts/torch_oracle.py; CI reads only the committed file). Each
// case names a lazy API function, its tensor inputs and other arguments,
// and PyTorch's outputs and the gradients of sum(out * cot) with respect to
// the float inputs, or the error PyTorch raised. Every case must match:
// dtypes and shapes exactly, integer and bool values exactly, float values
// within oracleTol, and an error where PyTorch raises (at build time or at
// the cut).

const oracleFile = "testdata/torch/cases.jsonl"

// oracleTol is the tolerance of float results: |got - want| <= rel*|want| +
// rel (the absolute part for results near 0). f32 allows about 8 units in
// the last place for different but accurate algorithms (erf, tanh, sums of
// products in another order); f64 about 50; f16 and bf16 one to two units,
// against either PyTorch's CPU result or the one computed in f32 and
// rounded once (Alt). Gradients allow four times as much (they chain
// several such ops) at the precision of the least precise float input,
// since PyTorch computes parts of the gradients of mixed-type ops in an
// input's type.
var oracleTol = map[DType]float64{F64: 1e-14, F32: 1e-6, F16: 1e-3, BF16: 8e-3}

const oracleGradFactor = 4

// oracleDTypes are the scripts's dtype names.
var oracleDTypes = map[string]DType{
	"bool": Bool, "i8": I8, "i16": I16, "i32": I32, "i64": I64, "u8": U8, "f16": F16, "bf16": BF16,
	"f32": F32, "f64": F64, "c64": C64, "c128": C128,
}

type oracleTensor struct {
	DT    string  `json:"dt"`
	Shape []int64 `json:"shape"`
	B64   string  `json:"b64"`
}

func (o *oracleTensor) dtype() DType { return oracleDTypes[o.DT] }

func (o *oracleTensor) literal() (*hlo.Literal, error) {
	dt, ok := oracleDTypes[o.DT]
	if !ok {
		return nil, fmt.Errorf("unknown dtype %q", o.DT)
	}
	raw, err := base64.StdEncoding.DecodeString(o.B64)
	if err != nil {
		return nil, err
	}
	l := hlo.NewLiteral(dt, o.Shape...)
	if len(raw) != len(l.Data) {
		return nil, fmt.Errorf("%d bytes for %s%v", len(raw), o.DT, o.Shape)
	}
	copy(l.Data, raw)
	return l, nil
}

type oracleCase struct {
	API  string                     `json:"api"`
	Name string                     `json:"name"`
	Args map[string]json.RawMessage `json:"args"`
	In   []*oracleTensor            `json:"in"`
	Out  []*oracleTensor            `json:"out"`
	Err  string                     `json:"err"`
	Cot  []*oracleTensor            `json:"cot"`
	Grad []*oracleTensor            `json:"grad"`
	Ref  string                     `json:"ref"`
	// Alt and AltGrad are the f16/bf16 results computed in f32 and rounded
	// once, where PyTorch's CPU kernels (which round some intermediates in
	// the small type) give others; either matches.
	Alt     []*oracleTensor `json:"alt"`
	AltGrad []*oracleTensor `json:"altgrad"`
}

// oracleArgs reads a case's arguments.
type oracleArgs map[string]json.RawMessage

func (a oracleArgs) has(k string) bool { _, ok := a[k]; return ok }

func (a oracleArgs) f(k string) float64 {
	var v any
	if err := json.Unmarshal(a[k], &v); err != nil {
		panic(fmt.Errorf("argument %s: %v", k, err))
	}
	switch v := v.(type) {
	case float64:
		return v
	case string:
		switch v {
		case "inf":
			return math.Inf(1)
		case "-inf":
			return math.Inf(-1)
		case "nan":
			return math.NaN()
		}
	}
	panic(fmt.Errorf("argument %s = %s is not a number", k, a[k]))
}

func (a oracleArgs) i(k string) int { return int(a.f(k)) }

func (a oracleArgs) b(k string) bool {
	var v bool
	if a.has(k) {
		json.Unmarshal(a[k], &v)
	}
	return v
}

func (a oracleArgs) s(k string) string {
	var v string
	json.Unmarshal(a[k], &v)
	return v
}

func (a oracleArgs) dt(k string) DType {
	dt, ok := oracleDTypes[a.s(k)]
	if !ok {
		panic(fmt.Errorf("argument %s: unknown dtype %s", k, a[k]))
	}
	return dt
}

func (a oracleArgs) ints64(k string) []int64 {
	var v []int64
	json.Unmarshal(a[k], &v)
	return v
}

func (a oracleArgs) ints(k string) []int {
	var v []int
	json.Unmarshal(a[k], &v)
	return v
}

func (a oracleArgs) pair(k string) [2]int64 {
	v := a.ints64(k)
	return [2]int64{v[0], v[1]}
}

type oracleFn func(in []*Tensor, a oracleArgs) []*Tensor

func one(t *Tensor) []*Tensor { return []*Tensor{t} }

func unaryAPI(f func(*Tensor) *Tensor) oracleFn {
	return func(in []*Tensor, a oracleArgs) []*Tensor { return one(f(in[0])) }
}

func binaryAPI(f func(x, y *Tensor) *Tensor) oracleFn {
	return func(in []*Tensor, a oracleArgs) []*Tensor { return one(f(in[0], in[1])) }
}

func scalarAPI(f func(*Tensor, float64) *Tensor) oracleFn {
	return func(in []*Tensor, a oracleArgs) []*Tensor { return one(f(in[0], a.f("v"))) }
}

func axesAPI(f func(*Tensor, ...int) *Tensor) oracleFn {
	return func(in []*Tensor, a oracleArgs) []*Tensor { return one(f(in[0], a.ints("axes")...)) }
}

func axisAPI(f func(*Tensor, int) *Tensor) oracleFn {
	return func(in []*Tensor, a oracleArgs) []*Tensor { return one(f(in[0], a.i("axis"))) }
}

// oracleAPI maps the cases' API names to the lazy functions.
var oracleAPI = map[string]oracleFn{
	"Neg": unaryAPI((*Tensor).Neg), "Abs": unaryAPI((*Tensor).Abs), "Exp": unaryAPI((*Tensor).Exp),
	"Expm1": unaryAPI((*Tensor).Expm1), "Log": unaryAPI((*Tensor).Log), "Log1p": unaryAPI((*Tensor).Log1p),
	"Sqrt": unaryAPI((*Tensor).Sqrt), "Rsqrt": unaryAPI((*Tensor).Rsqrt), "Tanh": unaryAPI((*Tensor).Tanh),
	"Sigmoid": unaryAPI((*Tensor).Sigmoid), "Sin": unaryAPI((*Tensor).Sin), "Cos": unaryAPI((*Tensor).Cos),
	"Floor": unaryAPI((*Tensor).Floor), "Ceil": unaryAPI((*Tensor).Ceil), "Round": unaryAPI((*Tensor).Round),
	"Sign": unaryAPI((*Tensor).Sign), "Not": unaryAPI((*Tensor).Not), "ReLU": unaryAPI((*Tensor).ReLU),
	"Erf": unaryAPI((*Tensor).Erf), "IsFinite": unaryAPI((*Tensor).IsFinite), "Square": unaryAPI((*Tensor).Square),
	"Reciprocal": unaryAPI((*Tensor).Reciprocal), "GELU": unaryAPI((*Tensor).GELU),
	"Detach": unaryAPI((*Tensor).Detach),

	"Add": binaryAPI((*Tensor).Add), "Sub": binaryAPI((*Tensor).Sub), "Mul": binaryAPI((*Tensor).Mul),
	"Div": binaryAPI((*Tensor).Div), "Pow": binaryAPI((*Tensor).Pow), "Max": binaryAPI((*Tensor).Max),
	"Min": binaryAPI((*Tensor).Min), "Rem": binaryAPI((*Tensor).Rem), "Atan2": binaryAPI((*Tensor).Atan2),
	"And": binaryAPI((*Tensor).And), "Or": binaryAPI((*Tensor).Or), "Xor": binaryAPI((*Tensor).Xor),
	"Eq": binaryAPI((*Tensor).Eq), "Ne": binaryAPI((*Tensor).Ne), "Lt": binaryAPI((*Tensor).Lt),
	"Le": binaryAPI((*Tensor).Le), "Gt": binaryAPI((*Tensor).Gt), "Ge": binaryAPI((*Tensor).Ge),

	"AddScalar": scalarAPI((*Tensor).AddScalar), "SubScalar": scalarAPI((*Tensor).SubScalar),
	"MulScalar": scalarAPI((*Tensor).MulScalar), "DivScalar": scalarAPI((*Tensor).DivScalar),
	"PowScalar": scalarAPI((*Tensor).PowScalar), "MaxScalar": scalarAPI((*Tensor).MaxScalar),
	"MinScalar": scalarAPI((*Tensor).MinScalar), "EqScalar": scalarAPI((*Tensor).EqScalar),
	"NeScalar": scalarAPI((*Tensor).NeScalar), "LtScalar": scalarAPI((*Tensor).LtScalar),
	"LeScalar": scalarAPI((*Tensor).LeScalar), "GtScalar": scalarAPI((*Tensor).GtScalar),
	"GeScalar": scalarAPI((*Tensor).GeScalar),

	"Where": func(in []*Tensor, a oracleArgs) []*Tensor { return one(Where(in[0], in[1], in[2])) },
	"Cast":  func(in []*Tensor, a oracleArgs) []*Tensor { return one(in[0].Cast(a.dt("dtype"))) },
	"Clamp": func(in []*Tensor, a oracleArgs) []*Tensor { return one(in[0].Clamp(a.f("min"), a.f("max"))) },

	"Sum": axesAPI((*Tensor).Sum), "SumKeepDims": axesAPI((*Tensor).SumKeepDims),
	"ReduceMax": axesAPI((*Tensor).ReduceMax), "ReduceMaxKeepDims": axesAPI((*Tensor).ReduceMaxKeepDims),
	"ReduceMin": axesAPI((*Tensor).ReduceMin), "ReduceMinKeepDims": axesAPI((*Tensor).ReduceMinKeepDims),
	"Mean": axesAPI((*Tensor).Mean), "MeanKeepDims": axesAPI((*Tensor).MeanKeepDims),
	"Prod": axesAPI((*Tensor).Prod), "ProdKeepDims": axesAPI((*Tensor).ProdKeepDims),
	"Var": axesAPI((*Tensor).Var), "VarKeepDims": axesAPI((*Tensor).VarKeepDims),
	"LogSumExp": axesAPI((*Tensor).LogSumExp), "LogSumExpKeepDims": axesAPI((*Tensor).LogSumExpKeepDims),
	"ArgMax": axisAPI((*Tensor).ArgMax), "ArgMaxKeepDims": axisAPI((*Tensor).ArgMaxKeepDims),
	"ArgMin": axisAPI((*Tensor).ArgMin), "ArgMinKeepDims": axisAPI((*Tensor).ArgMinKeepDims),
	"Cumsum": func(in []*Tensor, a oracleArgs) []*Tensor { return one(in[0].Cumsum(a.i("axis"))) },

	"MatMul": binaryAPI((*Tensor).MatMul),
	"Linear": func(in []*Tensor, a oracleArgs) []*Tensor { return one(Linear(in[0], in[1], optional(in, 2))) },
	"Einsum": func(in []*Tensor, a oracleArgs) []*Tensor { return one(Einsum(a.s("spec"), in...)) },
	"Softmax": func(in []*Tensor, a oracleArgs) []*Tensor {
		return one(in[0].Softmax(a.i("axis")))
	},
	"LogSoftmax": func(in []*Tensor, a oracleArgs) []*Tensor { return one(in[0].LogSoftmax(a.i("axis"))) },
	"LayerNorm": func(in []*Tensor, a oracleArgs) []*Tensor {
		var w, b *Tensor
		if a.b("weight") {
			w, b = in[1], in[2]
		}
		return one(LayerNorm(in[0], a.i("normalized"), w, b, a.f("eps")))
	},
	"Conv2d": func(in []*Tensor, a oracleArgs) []*Tensor {
		return one(Conv2d(in[0], in[1], optional(in, 2), Conv2dOpts{Stride: a.pair("stride"), Padding: a.pair("padding"),
			Dilation: a.pair("dilation"), Groups: int64(a.i("groups"))}))
	},
	"MaxPool2d": func(in []*Tensor, a oracleArgs) []*Tensor {
		return one(in[0].MaxPool2d(a.pair("kernel"), a.pair("stride"), a.pair("pad")))
	},
	"AvgPool2d": func(in []*Tensor, a oracleArgs) []*Tensor {
		return one(in[0].AvgPool2d(a.pair("kernel"), a.pair("stride"), a.pair("pad")))
	},
	"CrossEntropy": binaryAPI(CrossEntropy),
	"OneHot":       func(in []*Tensor, a oracleArgs) []*Tensor { return one(OneHot(in[0], int64(a.i("n")), a.dt("dtype"))) },
	"Dropout":      func(in []*Tensor, a oracleArgs) []*Tensor { return one(in[0].Dropout(a.f("p"), a.b("training"))) },

	"Sort": func(in []*Tensor, a oracleArgs) []*Tensor {
		v, i := in[0].Sort(a.i("axis"), a.b("descending"))
		return []*Tensor{v, i}
	},
	"TopK": func(in []*Tensor, a oracleArgs) []*Tensor {
		v, i := in[0].TopK(int64(a.i("k")))
		return []*Tensor{v, i}
	},
	"TakeAlong":    func(in []*Tensor, a oracleArgs) []*Tensor { return one(in[0].TakeAlong(a.i("axis"), in[1])) },
	"ScatterAdd":   func(in []*Tensor, a oracleArgs) []*Tensor { return one(in[0].ScatterAdd(a.i("axis"), in[1], in[2])) },
	"IndexSelect":  func(in []*Tensor, a oracleArgs) []*Tensor { return one(in[0].IndexSelect(a.i("axis"), in[1])) },
	"NonZero":      unaryAPI((*Tensor).NonZero),
	"Unique":       unaryAPI((*Tensor).Unique),
	"MaskedSelect": binaryAPI((*Tensor).MaskedSelect),

	"Reshape":   func(in []*Tensor, a oracleArgs) []*Tensor { return one(in[0].Reshape(a.ints64("dims")...)) },
	"Flatten":   unaryAPI((*Tensor).Flatten),
	"Permute":   func(in []*Tensor, a oracleArgs) []*Tensor { return one(in[0].Permute(a.ints("perm")...)) },
	"Transpose": func(in []*Tensor, a oracleArgs) []*Tensor { return one(in[0].Transpose(a.i("a"), a.i("b"))) },
	"T":         unaryAPI((*Tensor).T),
	"Unsqueeze": func(in []*Tensor, a oracleArgs) []*Tensor { return one(in[0].Unsqueeze(a.i("axis"))) },
	"Squeeze":   axesAPI((*Tensor).Squeeze),
	"Narrow": func(in []*Tensor, a oracleArgs) []*Tensor {
		return one(in[0].Narrow(a.i("axis"), int64(a.i("start")), int64(a.i("length"))))
	},
	"SliceStrided": func(in []*Tensor, a oracleArgs) []*Tensor {
		return one(in[0].SliceStrided(a.ints64("start"), a.ints64("limit"), a.ints64("strides")))
	},
	"Flip":  axesAPI((*Tensor).Flip),
	"Split": func(in []*Tensor, a oracleArgs) []*Tensor { return in[0].Split(a.i("axis"), a.ints64("sizes")...) },
	"Chunk": func(in []*Tensor, a oracleArgs) []*Tensor { return in[0].Chunk(a.i("axis"), a.i("n")) },
	"Pad":   func(in []*Tensor, a oracleArgs) []*Tensor { return one(in[0].Pad(a.ints64("pads")...)) },
	"PadWith": func(in []*Tensor, a oracleArgs) []*Tensor {
		return one(in[0].PadWith(a.ints64("lo"), a.ints64("hi"), a.ints64("interior"), a.f("value")))
	},
	"BroadcastTo": func(in []*Tensor, a oracleArgs) []*Tensor { return one(in[0].BroadcastTo(a.ints64("dims")...)) },
	"Expand":      func(in []*Tensor, a oracleArgs) []*Tensor { return one(in[0].Expand(a.ints64("dims")...)) },
	"Concat":      func(in []*Tensor, a oracleArgs) []*Tensor { return one(Concat(a.i("axis"), in...)) },
	"Stack":       func(in []*Tensor, a oracleArgs) []*Tensor { return one(Stack(a.i("axis"), in...)) },

	"Full": func(in []*Tensor, a oracleArgs) []*Tensor {
		return one(Full(a.dt("dtype"), a.f("v"), a.ints64("dims")...))
	},
	"Scalar":    func(in []*Tensor, a oracleArgs) []*Tensor { return one(Scalar(a.dt("dtype"), a.f("v"))) },
	"Zeros":     func(in []*Tensor, a oracleArgs) []*Tensor { return one(Zeros(a.dt("dtype"), a.ints64("dims")...)) },
	"Ones":      func(in []*Tensor, a oracleArgs) []*Tensor { return one(Ones(a.dt("dtype"), a.ints64("dims")...)) },
	"ZerosLike": unaryAPI(ZerosLike),
	"OnesLike":  unaryAPI(OnesLike),
	"Arange": func(in []*Tensor, a oracleArgs) []*Tensor {
		return one(Arange(a.dt("dtype"), a.f("start"), a.f("stop"), a.f("step")))
	},
	"Iota": func(in []*Tensor, a oracleArgs) []*Tensor {
		return one(Iota(a.dt("dtype"), a.i("axis"), a.ints64("dims")...))
	},
}

func optional(in []*Tensor, i int) *Tensor {
	if i < len(in) {
		return in[i]
	}
	return nil
}

// noOracle gives the reason why a public API function (returning tensors)
// has no oracle case.
var noOracle = map[string]string{
	"Relu":                  "a deprecated name of ReLU, which has cases",
	"RandN":                 "random draws come from the device RNG (XLA's THREE_FRY), not PyTorch's generator; TestOpsRandN checks the distribution",
	"RandNOn":               "as RandN",
	"RandUniform":           "as RandN; TestOpsRandUniform",
	"RandUniformOn":         "as RandN",
	"DynamicSlice":          "XLA's dynamic_slice (start indices clamped into range) has no PyTorch op with run-time starts; TestOpsDynamicSlice",
	"DynamicUpdateSlice":    "as DynamicSlice",
	"Apply":                 "the generic entry of the op table; every case goes through it",
	"Record":                "Apply without eager computation or host ops, for rebuilding graphs to lower; compared by the jit and difftest tests",
	"Share":                 "a new tensor holding the same buffer or IR; its identity and independence are tested by the jit and difftest tests",
	"FromSlice":             "every case's inputs are made from host data; the conversion is a copy",
	"FromLiteral":           "as FromSlice",
	"FromLiteralOn":         "as FromSlice",
	"FromBuffer":            "wraps a device buffer; no numerics",
	"Constant":              "an IR constant of a literal; Full and Scalar cover constants",
	"NewPlaceholder":        "a symbolic input for tracing; never computed",
	"RunGoKernelTensors":    "runs a host kernel; the host ops (NonZero, Unique, MaskedSelect) have cases",
	"Grad":                  "every case with float inputs checks its gradients through Grad",
	"GradWith":              "as Grad",
	"FullOn":                "Full on a given device",
	"IotaOn":                "Iota on a given device",
	"FromLiteralSharded":    "SPMD data: a layout, no numerics; package spmd compares sharded and unsharded programs",
	"EnableManualSharding":  "SPMD manual regions; package spmd checks them against PyTorch/XLA's test_manual_sharding_e2e",
	"DisableManualSharding": "as EnableManualSharding",
	"NewShardedPlaceholder": "as NewPlaceholder, with an SPMD layout",
	"RecordOn":              "Record on a given device (constants of rebuilt graphs)",
}

// noOracleOp gives the reason why an op table row is not exercised by any
// oracle case's graph.
var noOracleOp = map[string]string{
	"DeviceData":         "a graph leaf, not an op",
	"Sharding":           "an SPMD layout annotation, the identity on values; package spmd compares sharded and unsharded programs",
	"FullToShard":        "a manual SPMD region's entry; package spmd checks it against PyTorch/XLA's test_manual_sharding_e2e",
	"ShardToFull":        "a manual SPMD region's exit; as FullToShard",
	"RngBits":            "random bits; see RandN in noOracle",
	"DynamicSlice":       "see DynamicSlice in noOracle",
	"DynamicUpdateSlice": "see DynamicSlice in noOracle",
	"HostFunc":           "user Go code",
}

func loadOracle(t *testing.T) []*oracleCase {
	f, err := os.Open(oracleFile)
	if err != nil {
		t.Fatalf("%v (regenerate with /usr/bin/python3 scripts/torch_oracle.py)", err)
	}
	defer f.Close()
	var cases []*oracleCase
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		c := &oracleCase{}
		if err := json.Unmarshal(line, c); err != nil {
			t.Fatalf("%s: %v", oracleFile, err)
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

// oracleOps records the op table rows the cases' graphs used.
type oracleOps map[string]bool

// walk records the ops of the IR that computes t (pending IR, or the IR a
// cut or host op computed it from).
func (s oracleOps) walk(t *Tensor) {
	seen := map[*Node]bool{}
	var visit func(n *Node)
	visit = func(n *Node) {
		if n == nil || seen[n] {
			return
		}
		seen[n] = true
		s[n.op.Name] = true
		for _, in := range n.inputs {
			visit(in.Node)
		}
		if n.src != nil {
			visit(n.src.origin.Node)
		}
	}
	visit(t.val.Node)
	visit(t.origin.Node)
}

func TestTorchOracle(t *testing.T) {
	cases := loadOracle(t)
	if len(cases) < 1000 {
		t.Fatalf("only %d oracle cases", len(cases))
	}
	ops := oracleOps{}
	byAPI := map[string][]*oracleCase{}
	var apis []string
	for _, c := range cases {
		if byAPI[c.API] == nil {
			apis = append(apis, c.API)
		}
		byAPI[c.API] = append(byAPI[c.API], c)
	}
	for _, api := range apis {
		fn := oracleAPI[api]
		t.Run(api, func(t *testing.T) {
			if fn == nil {
				t.Fatalf("no lazy function for API %s", api)
			}
			bad := 0
			for _, c := range byAPI[api] {
				if msg := runOracleCase(c, fn, ops); msg != "" {
					if bad < 12 {
						t.Errorf("%s: %s", c.Name, msg)
					}
					bad++
				}
			}
			if bad > 12 {
				t.Errorf("%d of %d cases fail", bad, len(byAPI[api]))
			}
		})
	}
	t.Run("ops", func(t *testing.T) {
		for _, d := range Ops() {
			if !ops[d.Name] && noOracleOp[d.Name] == "" {
				t.Errorf("op %s is in no oracle case's graph and noOracleOp gives no reason", d.Name)
			}
		}
	})
}

// runOracleCase runs one case and returns what differs ("" when it
// matches).
func runOracleCase(c *oracleCase, fn oracleFn, ops oracleOps) (msg string) {
	ins := make([]*Tensor, len(c.In))
	for i, o := range c.In {
		l, err := o.literal()
		if err != nil {
			return fmt.Sprintf("input %d: %v", i, err)
		}
		ins[i] = FromLiteral(l)
	}
	var outs []*Tensor
	err := Try(func() {
		outs = fn(ins, oracleArgs(c.Args))
		for _, o := range outs {
			ops.walk(o)
		}
		if err := Sync(outs...); err != nil {
			panic(err)
		}
	})
	if c.Err != "" {
		if err == nil {
			return "no error; PyTorch raises: " + c.Err
		}
		return ""
	}
	if err != nil {
		return fmt.Sprintf("error %v; PyTorch gives %d results", err, len(c.Out))
	}
	if len(outs) != len(c.Out) {
		return fmt.Sprintf("%d results, PyTorch %d", len(outs), len(c.Out))
	}
	for i, o := range c.Out {
		if m := compareOracle(outs[i], o, 1); m != "" && (c.Alt == nil || compareOracle(outs[i], c.Alt[i], 1) != "") {
			return fmt.Sprintf("result %d: %s", i, m)
		}
	}
	if c.Grad == nil {
		return ""
	}
	var loss *Tensor
	var wrt []*Tensor
	var want, alt []*oracleTensor
	err = Try(func() {
		for i, cot := range c.Cot {
			if cot == nil {
				continue
			}
			l, err := cot.literal()
			if err != nil {
				panic(err)
			}
			term := outs[i].Cast(F64).Mul(FromLiteral(l).Cast(F64)).Sum()
			if loss == nil {
				loss = term
			} else {
				loss = loss.Add(term)
			}
		}
		for i, g := range c.Grad {
			if g != nil {
				wrt = append(wrt, ins[i])
				want = append(want, g)
				if c.AltGrad != nil {
					alt = append(alt, c.AltGrad[i])
				}
			}
		}
	})
	if err != nil {
		return fmt.Sprintf("building the loss: %v", err)
	}
	var grads []*Tensor
	err = Try(func() {
		grads = Grad(loss, wrt...)
		for _, g := range grads {
			ops.walk(g)
		}
		if err := Sync(grads...); err != nil {
			panic(err)
		}
	})
	if err != nil {
		return fmt.Sprintf("gradient: %v", err)
	}
	gradDT := F64
	for _, x := range ins {
		if x.DType().IsFloat() && oracleTol[x.DType()] > oracleTol[gradDT] {
			gradDT = x.DType()
		}
	}
	for i, w := range want {
		f := oracleGradFactor * oracleTol[gradDT] / oracleTol[w.dtype()]
		if m := compareOracle(grads[i], w, f); m != "" && (alt == nil || compareOracle(grads[i], alt[i], f) != "") {
			return fmt.Sprintf("gradient %d: %s", i, m)
		}
	}
	return ""
}

// compareOracle compares a computed tensor with PyTorch's (tolerances
// scaled by factor).
func compareOracle(got *Tensor, want *oracleTensor, factor float64) string {
	wl, err := want.literal()
	if err != nil {
		return err.Error()
	}
	if got.DType() != wl.DType || !sameDims(got.Dims(), wl.Dims) {
		return fmt.Sprintf("%s, PyTorch %s", got.Shape(), NewShape(wl.DType, wl.Dims...))
	}
	gl, err := got.Literal()
	if err != nil {
		return err.Error()
	}
	n := wl.NumElements()
	dt := wl.DType
	if !dt.IsFloat() && !dt.IsComplex() {
		for i := 0; i < n; i++ {
			if gl.Int(i) != wl.Int(i) {
				return fmt.Sprintf("element %v = %d, PyTorch %d", unflat(wl.Dims, i), gl.Int(i), wl.Int(i))
			}
		}
		return ""
	}
	part := dt
	if dt.IsComplex() {
		part = dt.ComplexPart()
	}
	rel := oracleTol[part] * factor
	vals := func(l *hlo.Literal, i int) []float64 {
		if dt.IsComplex() {
			z := l.Complex(i)
			return []float64{real(z), imag(z)}
		}
		return []float64{l.Float(i)}
	}
	for i := 0; i < n; i++ {
		g, w := vals(gl, i), vals(wl, i)
		for k := range w {
			ok := false
			switch {
			case math.IsNaN(w[k]):
				ok = math.IsNaN(g[k])
			case math.IsInf(w[k], 0):
				ok = g[k] == w[k]
			default:
				ok = math.Abs(g[k]-w[k]) <= rel*(math.Abs(w[k])+1)
			}
			if !ok {
				return fmt.Sprintf("element %v = %.9g, PyTorch %.9g (tolerance %.3g relative)", unflat(wl.Dims, i), g[k], w[k], rel)
			}
		}
	}
	return ""
}

// TestTorchOracleCoverage: every public function or method of package lazy
// that returns tensors has oracle cases or a reason in noOracle, and no
// reason names a function that has cases or does not exist.
func TestTorchOracleCoverage(t *testing.T) {
	have := map[string]bool{}
	for _, c := range loadOracle(t) {
		have[c.API] = true
	}
	api := tensorAPI(t)
	var missing []string
	for name := range api {
		switch {
		case have[name] && noOracle[name] != "":
			t.Errorf("%s has oracle cases and a reason for having none", name)
		case !have[name] && noOracle[name] == "":
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("public functions with neither oracle cases nor a reason in noOracle: %v", missing)
	}
	for name := range noOracle {
		if !api[name] {
			t.Errorf("noOracle names %s, which is not a public function returning tensors", name)
		}
	}
	for name := range have {
		if !api[name] {
			t.Errorf("oracle cases name %s, which is not a public function returning tensors", name)
		}
	}
	for name := range noOracleOp {
		if LookupOp(name) == nil {
			t.Errorf("noOracleOp names unknown op %s", name)
		}
	}
}

// tensorAPI lists the exported functions and *Tensor methods of the
// package's non-test files whose results include a *Tensor or []*Tensor.
func tensorAPI(t *testing.T) map[string]bool {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	out := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range af.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || !fd.Name.IsExported() || fd.Type.Results == nil {
				continue
			}
			if fd.Recv != nil && !isTensorPtr(fd.Recv.List[0].Type) {
				continue
			}
			for _, r := range fd.Type.Results.List {
				typ := r.Type
				if at, ok := typ.(*ast.ArrayType); ok {
					typ = at.Elt
				}
				if isTensorPtr(typ) {
					out[fd.Name.Name] = true
				}
			}
		}
	}
	return out
}

func isTensorPtr(e ast.Expr) bool {
	st, ok := e.(*ast.StarExpr)
	if !ok {
		return false
	}
	id, ok := st.X.(*ast.Ident)
	return ok && id.Name == "Tensor"
}

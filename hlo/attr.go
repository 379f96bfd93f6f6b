package hlo

import (
	"strconv"
	"strings"
)

// Attr is an MLIR attribute value. The concrete types are listed below;
// OpaqueAttr keeps any attribute the package does not model, verbatim.
type Attr interface {
	attr()
}

type (
	// IntAttr is an integer attribute: `5 : i64`. Type is nil when the
	// source gave none (MLIR then means i64).
	IntAttr struct {
		Value int64
		Type  Type
	}
	// FloatAttr is a float attribute: `1.0e-01 : f32`.
	FloatAttr struct {
		Value float64
		Type  Type
	}
	// BoolAttr is `true` or `false`.
	BoolAttr bool
	// StringAttr is a quoted string.
	StringAttr string
	// UnitAttr is a present-without-value attribute (`{has_side_effect}`).
	UnitAttr struct{}
	// TypeAttr wraps a type used as an attribute.
	TypeAttr struct{ Type Type }
	// ArrayAttr is `[a, b, ...]`.
	ArrayAttr []Attr
	// DictAttr is `{name = value, ...}`.
	DictAttr []NamedAttr
	// SymbolRefAttr is `@name` (or `@a::@b` with Nested = ["b"]).
	SymbolRefAttr struct {
		Name   string
		Nested []string
	}
	// DenseArrayAttr is `array<i64: 1, 2>` (ints and i1 in Ints, floats in
	// Floats).
	DenseArrayAttr struct {
		DType  DType
		Ints   []int64
		Floats []float64
	}
	// DenseElementsAttr is `dense<...> : tensor<...>`. Value holds every
	// element, except in a compact splat (NewSplatAttr; the parser makes
	// one for every `dense<x>` of more than one element): Value is then nil
	// and Splat holds the repeated element as a rank-0 literal, so the
	// attribute costs one element whatever the size of its type. Literal
	// returns the elements of either form.
	DenseElementsAttr struct {
		Type  *TensorType
		Value *Literal
		Splat *Literal
	}
	// EnumAttr is `#stablehlo<comparison_direction GT>`; in pretty op forms the
	// same value is written bare (`GT`).
	EnumAttr struct {
		Dialect string // "stablehlo", "chlo"
		Kind    string // "comparison_direction", "comparison_type", "precision", ...
		Value   string
	}
	// ChannelHandleAttr is #stablehlo.channel_handle<handle = 1, type = 0>.
	ChannelHandleAttr struct {
		Handle, Type int64
	}
	// GatherDimsAttr is #stablehlo.gather<...>.
	GatherDimsAttr struct {
		OffsetDims               []int64
		CollapsedSliceDims       []int64
		OperandBatchingDims      []int64
		StartIndicesBatchingDims []int64
		StartIndexMap            []int64
		IndexVectorDim           int64
	}
	// ScatterDimsAttr is #stablehlo.scatter<...>.
	ScatterDimsAttr struct {
		UpdateWindowDims           []int64
		InsertedWindowDims         []int64
		InputBatchingDims          []int64
		ScatterIndicesBatchingDims []int64
		ScatterDimsToOperandDims   []int64
		IndexVectorDim             int64
	}
	// DotDimsAttr is #stablehlo.dot<...> (dot_general's dimension numbers).
	DotDimsAttr struct {
		LhsBatchingDims    []int64
		RhsBatchingDims    []int64
		LhsContractingDims []int64
		RhsContractingDims []int64
	}
	// ConvDimsAttr is convolution's dimension numbers, printed
	// `[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]` in the pretty form and
	// #stablehlo.conv<raw ...> / #stablehlo.conv<[b, 0, 1, f]x...> in the generic one.
	ConvDimsAttr struct {
		InputBatchDim          int64
		InputFeatureDim        int64
		InputSpatialDims       []int64
		KernelInputFeatureDim  int64
		KernelOutputFeatureDim int64
		KernelSpatialDims      []int64
		OutputBatchDim         int64
		OutputFeatureDim       int64
		OutputSpatialDims      []int64
	}
	// OpaqueAttr is any other attribute, kept as its source text
	// (`#sdy.sharding<@mesh, [{}]>`).
	OpaqueAttr struct{ Text string }
	// BoundsAttr is the tensor encoding #stablehlo.bounds<3, ?>: an upper
	// bound per dimension (DynamicDim where unbounded), used with dynamic
	// dimensions.
	BoundsAttr struct{ Bounds []int64 }
)

func (IntAttr) attr()            {}
func (FloatAttr) attr()          {}
func (BoolAttr) attr()           {}
func (StringAttr) attr()         {}
func (UnitAttr) attr()           {}
func (TypeAttr) attr()           {}
func (ArrayAttr) attr()          {}
func (DictAttr) attr()           {}
func (SymbolRefAttr) attr()      {}
func (*DenseArrayAttr) attr()    {}
func (*DenseElementsAttr) attr() {}
func (EnumAttr) attr()           {}
func (ChannelHandleAttr) attr()  {}
func (*GatherDimsAttr) attr()    {}
func (*ScatterDimsAttr) attr()   {}
func (*DotDimsAttr) attr()       {}
func (*ConvDimsAttr) attr()      {}
func (OpaqueAttr) attr()         {}
func (*BoundsAttr) attr()        {}

// Get returns the attribute called name in the dictionary, or nil.
func (d DictAttr) Get(name string) Attr { return LookupAttr(d, name) }

// AttrString prints an attribute in MLIR syntax (the generic spelling; op
// printers may use shorter pretty forms).
func AttrString(a Attr) string {
	var b strings.Builder
	writeAttr(&b, a)
	return b.String()
}

func writeInts(b *strings.Builder, xs []int64) {
	b.WriteByte('[')
	for i, x := range xs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.FormatInt(x, 10))
	}
	b.WriteByte(']')
}

// Layout prints the dimension numbers as `[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]`.
func (c *ConvDimsAttr) Layout() string {
	part := func(rank int, spatial []int64, named map[int64]string) string {
		names := make([]string, rank)
		for d, s := range named {
			if int(d) < rank && d >= 0 {
				names[d] = s
			}
		}
		for i, d := range spatial {
			if int(d) < rank && d >= 0 {
				names[d] = strconv.Itoa(i)
			}
		}
		return "[" + strings.Join(names, ", ") + "]"
	}
	rank := len(c.InputSpatialDims) + 2
	return part(rank, c.InputSpatialDims, map[int64]string{c.InputBatchDim: "b", c.InputFeatureDim: "f"}) + "x" +
		part(rank, c.KernelSpatialDims, map[int64]string{c.KernelInputFeatureDim: "i", c.KernelOutputFeatureDim: "o"}) + "->" +
		part(rank, c.OutputSpatialDims, map[int64]string{c.OutputBatchDim: "b", c.OutputFeatureDim: "f"})
}

// QuoteString quotes s as MLIR prints string literals: printable ASCII
// as is, a backslash doubled, and '"' and every other byte as \XX hex.
func QuoteString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\':
			b.WriteString(`\\`)
		case c >= 0x20 && c < 0x7f && c != '"':
			b.WriteByte(c)
		default:
			b.WriteByte('\\')
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&15])
		}
	}
	b.WriteByte('"')
	return b.String()
}

// AttrInt returns an integer attribute's value (IntAttr, or a one-element
// integer DenseElementsAttr / DenseArrayAttr).
func AttrInt(a Attr) (int64, bool) {
	switch a := a.(type) {
	case IntAttr:
		return a.Value, true
	case BoolAttr:
		if a {
			return 1, true
		}
		return 0, true
	}
	xs, ok := AttrInts(a)
	if ok && len(xs) == 1 {
		return xs[0], true
	}
	return 0, false
}

// AttrInts returns the integers of a DenseArrayAttr, an ArrayAttr of
// IntAttr, or an integer DenseElementsAttr (row-major; a compact splat of
// more than maxSplatInts elements is not expanded and gives false).
func AttrInts(a Attr) ([]int64, bool) {
	switch a := a.(type) {
	case *DenseArrayAttr:
		if a.DType.IsFloat() {
			return nil, false
		}
		return a.Ints, true
	case ArrayAttr:
		out := make([]int64, len(a))
		for i, e := range a {
			v, ok := e.(IntAttr)
			if !ok {
				return nil, false
			}
			out[i] = v.Value
		}
		return out, true
	case *DenseElementsAttr:
		if a.Splat != nil {
			n := a.Type.NumElements()
			if !(a.Splat.DType.IsInt() || a.Splat.DType.IsBool()) || n < 0 || n > maxSplatInts {
				return nil, false
			}
			out := make([]int64, n)
			v := a.Splat.Int(0)
			for i := range out {
				out[i] = v
			}
			return out, true
		}
		l := a.Value
		if l == nil || !(l.DType.IsInt() || l.DType.IsBool()) {
			return nil, false
		}
		n := l.NumElements()
		out := make([]int64, n)
		for i := 0; i < n; i++ {
			out[i] = l.Int(i)
		}
		return out, true
	}
	return nil, false
}

// AttrFloat returns a FloatAttr's or IntAttr's value.
func AttrFloat(a Attr) (float64, bool) {
	switch a := a.(type) {
	case FloatAttr:
		return a.Value, true
	case IntAttr:
		return float64(a.Value), true
	}
	return 0, false
}

// AttrString returns a StringAttr's value.
func AttrStr(a Attr) (string, bool) {
	s, ok := a.(StringAttr)
	return string(s), ok
}

// AttrEnum returns the value of an EnumAttr ("GT"), or of a StringAttr.
func AttrEnum(a Attr) (string, bool) {
	switch a := a.(type) {
	case EnumAttr:
		return a.Value, true
	case StringAttr:
		return string(a), true
	}
	return "", false
}

package hlo

import (
	"math"
	"sort"
	"strconv"
	"strings"
)

// Attribute printing in MLIR's generic syntax, matching MLIR's output:
// integer attributes print their type except i64 inside arrays, floats use
// FormatFloatBits of their type, dictionaries are sorted by name.

// writeAttr appends the MLIR spelling of a. elideType drops the `: i64` /
// `: f64` suffix of default-typed numbers (MLIR does so inside arrays).
func writeAttr(b *strings.Builder, a Attr) { writeAttrElide(b, a, false) }

func writeAttrElide(b *strings.Builder, a Attr, elideType bool) {
	switch a := a.(type) {
	case nil:
		b.WriteString("<<NULL ATTRIBUTE>>")
	case IntAttr:
		dt, tagged := attrScalar(a.Type)
		switch {
		case tagged && dt == Bool:
			b.WriteString(strconv.FormatBool(a.Value != 0))
			return
		case tagged && dt.IsUnsigned():
			b.WriteString(strconv.FormatUint(uint64(WrapInt(dt, a.Value)), 10))
		default:
			b.WriteString(strconv.FormatInt(a.Value, 10))
		}
		switch {
		case a.Type == nil:
			if !elideType {
				b.WriteString(" : i64")
			}
		case tagged:
			if !(elideType && dt == I64) {
				b.WriteString(" : " + dt.String())
			}
		default:
			b.WriteString(" : " + a.Type.String())
		}
	case FloatAttr:
		dt, tagged := attrScalar(a.Type)
		switch {
		case a.Type == nil:
			s := FormatFloat(a.Value)
			b.WriteString(s)
			// A hex bit pattern without its type would read back as an
			// integer, so MLIR keeps the type then.
			if !elideType || strings.HasPrefix(s, "0x") {
				b.WriteString(" : f64")
			}
		case tagged && dt.IsFloat():
			s := FormatFloatBits(dt, Float64ToFloatBits(dt, a.Value))
			b.WriteString(s)
			if !(elideType && dt == F64) || strings.HasPrefix(s, "0x") {
				b.WriteString(" : " + dt.String())
			}
		default:
			b.WriteString(FormatFloat(a.Value))
			b.WriteString(" : " + a.Type.String())
		}
	case BoolAttr:
		b.WriteString(strconv.FormatBool(bool(a)))
	case StringAttr:
		b.WriteString(QuoteString(string(a)))
	case UnitAttr:
		b.WriteString("unit")
	case TypeAttr:
		if a.Type == nil {
			b.WriteString("<<NULL TYPE>>")
		} else {
			b.WriteString(a.Type.String())
		}
	case ArrayAttr:
		b.WriteByte('[')
		for i, e := range a {
			if i > 0 {
				b.WriteString(", ")
			}
			writeAttrElide(b, e, true)
		}
		b.WriteByte(']')
	case DictAttr:
		writeAttrDictBody(b, a)
	case SymbolRefAttr:
		b.WriteString(symbolRef(a.Name))
		for _, n := range a.Nested {
			b.WriteString("::" + symbolRef(n))
		}
	case *DenseArrayAttr:
		b.WriteString("array<" + a.DType.String())
		n := len(a.Ints)
		if a.DType.IsFloat() {
			n = len(a.Floats)
		}
		for i := 0; i < n; i++ {
			if i == 0 {
				b.WriteString(": ")
			} else {
				b.WriteString(", ")
			}
			switch {
			case a.DType.IsFloat():
				b.WriteString(FormatFloatBits(a.DType, Float64ToFloatBits(a.DType, a.Floats[i])))
			case a.DType == Bool:
				b.WriteString(strconv.FormatBool(a.Ints[i] != 0))
			case a.DType.IsUnsigned():
				b.WriteString(strconv.FormatUint(uint64(a.Ints[i]), 10))
			default:
				b.WriteString(strconv.FormatInt(a.Ints[i], 10))
			}
		}
		b.WriteByte('>')
	case *DenseElementsAttr:
		if a.Splat != nil && a.Type != nil {
			b.WriteString("dense<" + a.Splat.ElemString(0) + "> : " + a.Type.String())
			return
		}
		if a.Value == nil {
			b.WriteString("<<NULL DENSE VALUE>>")
			return
		}
		b.WriteString(DenseString(a.Value))
		b.WriteString(" : ")
		if a.Type != nil {
			b.WriteString(a.Type.String())
		} else {
			b.WriteString(a.Value.Type().String())
		}
	case EnumAttr:
		b.WriteString("#" + a.Dialect + "<" + a.Kind + " " + a.Value + ">")
	case ChannelHandleAttr:
		b.WriteString("#stablehlo.channel_handle<handle = " + strconv.FormatInt(a.Handle, 10) +
			", type = " + strconv.FormatInt(a.Type, 10) + ">")
	case *GatherDimsAttr:
		writeDimsStruct(b, "#stablehlo.gather", a.fields())
	case *ScatterDimsAttr:
		writeDimsStruct(b, "#stablehlo.scatter", a.fields())
	case *DotDimsAttr:
		writeDimsStruct(b, "#stablehlo.dot", a.fields())
	case *ConvDimsAttr:
		b.WriteString("#stablehlo.conv<")
		if a.layoutValid() {
			b.WriteString(a.Layout())
		} else {
			a.writeRaw(b)
		}
		b.WriteByte('>')
	case *BoundsAttr:
		b.WriteString("#stablehlo.bounds<")
		for i, d := range a.Bounds {
			if i > 0 {
				b.WriteString(", ")
			}
			if d < 0 {
				b.WriteByte('?')
			} else {
				b.WriteString(strconv.FormatInt(d, 10))
			}
		}
		b.WriteByte('>')
	case OpaqueAttr:
		b.WriteString(a.Text)
	default:
		b.WriteString("<<unknown attribute>>")
	}
}

// attrScalar recognizes the scalar type tag of an int or float attribute
// (a rank-0 tensor type, see attrTypeTag).
func attrScalar(t Type) (DType, bool) {
	if tt, ok := t.(*TensorType); ok && len(tt.Dims) == 0 && tt.Quant == nil && tt.Encoding == nil {
		return tt.DType, true
	}
	return InvalidDType, false
}

// dimsField is one field of a #stablehlo.gather, #stablehlo.scatter or
// #stablehlo.dot attribute: an integer list, or (one != nil) the single
// integer index_vector_dim. The fields methods list them in printing order
// for the printer and the parser.
type dimsField struct {
	name string
	list *[]int64
	one  *int64
}

func (g *GatherDimsAttr) fields() []dimsField {
	return []dimsField{
		{"offset_dims", &g.OffsetDims, nil},
		{"collapsed_slice_dims", &g.CollapsedSliceDims, nil},
		{"operand_batching_dims", &g.OperandBatchingDims, nil},
		{"start_indices_batching_dims", &g.StartIndicesBatchingDims, nil},
		{"start_index_map", &g.StartIndexMap, nil},
		{"index_vector_dim", nil, &g.IndexVectorDim},
	}
}

func (s *ScatterDimsAttr) fields() []dimsField {
	return []dimsField{
		{"update_window_dims", &s.UpdateWindowDims, nil},
		{"inserted_window_dims", &s.InsertedWindowDims, nil},
		{"input_batching_dims", &s.InputBatchingDims, nil},
		{"scatter_indices_batching_dims", &s.ScatterIndicesBatchingDims, nil},
		{"scatter_dims_to_operand_dims", &s.ScatterDimsToOperandDims, nil},
		{"index_vector_dim", nil, &s.IndexVectorDim},
	}
}

func (d *DotDimsAttr) fields() []dimsField {
	return []dimsField{
		{"lhs_batching_dimensions", &d.LhsBatchingDims, nil},
		{"rhs_batching_dimensions", &d.RhsBatchingDims, nil},
		{"lhs_contracting_dimensions", &d.LhsContractingDims, nil},
		{"rhs_contracting_dimensions", &d.RhsContractingDims, nil},
	}
}

// writeDimsStruct writes kind<name = [..], ...>, skipping empty lists and
// a zero index_vector_dim (as StableHLO's printStruct does).
func writeDimsStruct(b *strings.Builder, kind string, fs []dimsField) {
	b.WriteString(kind + "<")
	first := true
	for _, f := range fs {
		if f.one != nil && *f.one == 0 || f.one == nil && len(*f.list) == 0 {
			continue
		}
		if !first {
			b.WriteString(", ")
		}
		first = false
		b.WriteString(f.name + " = ")
		if f.one != nil {
			b.WriteString(strconv.FormatInt(*f.one, 10))
		} else {
			writeInts(b, *f.list)
		}
	}
	b.WriteByte('>')
}

// layoutValid reports whether the dimension numbers describe permutations
// of equal rank that the compact [b, 0, f]x[..]->[..] form can show.
func (c *ConvDimsAttr) layoutValid() bool {
	ok := func(named []int64, spatial []int64) bool {
		rank := len(spatial) + len(named)
		seen := make([]bool, rank)
		for _, d := range append(append([]int64{}, named...), spatial...) {
			if d < 0 || int(d) >= rank || seen[d] {
				return false
			}
			seen[d] = true
		}
		return true
	}
	if len(c.KernelSpatialDims) != len(c.InputSpatialDims) || len(c.OutputSpatialDims) != len(c.InputSpatialDims) {
		return false
	}
	return ok([]int64{c.InputBatchDim, c.InputFeatureDim}, c.InputSpatialDims) &&
		ok([]int64{c.KernelInputFeatureDim, c.KernelOutputFeatureDim}, c.KernelSpatialDims) &&
		ok([]int64{c.OutputBatchDim, c.OutputFeatureDim}, c.OutputSpatialDims)
}

func (c *ConvDimsAttr) writeRaw(b *strings.Builder) {
	b.WriteString("raw input_batch_dimension = " + strconv.FormatInt(c.InputBatchDim, 10))
	b.WriteString(", input_feature_dimension = " + strconv.FormatInt(c.InputFeatureDim, 10))
	b.WriteString(", input_spatial_dimensions = ")
	writeInts(b, c.InputSpatialDims)
	b.WriteString(", kernel_input_feature_dimension = " + strconv.FormatInt(c.KernelInputFeatureDim, 10))
	b.WriteString(", kernel_output_feature_dimension = " + strconv.FormatInt(c.KernelOutputFeatureDim, 10))
	b.WriteString(", kernel_spatial_dimensions = ")
	writeInts(b, c.KernelSpatialDims)
	b.WriteString(", output_batch_dimension = " + strconv.FormatInt(c.OutputBatchDim, 10))
	b.WriteString(", output_feature_dimension = " + strconv.FormatInt(c.OutputFeatureDim, 10))
	b.WriteString(", output_spatial_dimensions = ")
	writeInts(b, c.OutputSpatialDims)
}

// sortedAttrs returns attrs sorted by name (MLIR keeps dictionaries
// sorted), leaving the input untouched.
func sortedAttrs(attrs []NamedAttr) []NamedAttr {
	out := append([]NamedAttr(nil), attrs...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// writeAttrDictBody writes `{a = 1 : i64, flag}` (sorted).
func writeAttrDictBody(b *strings.Builder, attrs []NamedAttr) {
	b.WriteByte('{')
	for i, na := range sortedAttrs(attrs) {
		if i > 0 {
			b.WriteString(", ")
		}
		writeNamedAttr(b, na)
	}
	b.WriteByte('}')
}

func writeNamedAttr(b *strings.Builder, na NamedAttr) {
	b.WriteString(attrKey(na.Name))
	if _, unit := na.Value.(UnitAttr); unit {
		return
	}
	b.WriteString(" = ")
	writeAttr(b, na.Value)
}

// attrKey spells a dictionary key: bare when it is an identifier, quoted
// otherwise.
func attrKey(s string) string {
	if isBareIdent(s) {
		return s
	}
	return QuoteString(s)
}

// symbolRef spells @name, quoting names that are not identifiers.
func symbolRef(s string) string {
	if isBareIdent(s) {
		return "@" + s
	}
	return "@" + QuoteString(s)
}

func isBareIdent(s string) bool {
	if s == "" || !isBareStart(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isBareChar(s[i]) {
			return false
		}
	}
	return true
}

// floatBitsOfAttr returns the raw bits of a float attribute value in type
// dt (used by printers that show FloatAttr values without their type).
func floatBitsOfAttr(dt DType, v float64) uint64 {
	if dt == F64 {
		return math.Float64bits(v)
	}
	return Float64ToFloatBits(dt, v)
}

package lazy

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/xlajit/xlajit/hlo"
)

// Attr is one op attribute. Val is one of int64, []int64, float64, bool,
// string, DType, *hlo.Literal.
type Attr struct {
	Key string
	Val any
}

// Attrs are an op's attributes, in a fixed order per op (they are hashed
// and printed in that order).
type Attrs []Attr

func (a Attrs) get(key string) any {
	for _, x := range a {
		if x.Key == key {
			return x.Val
		}
	}
	return nil
}

// Int returns an int64 attribute (0 if absent).
func (a Attrs) Int(key string) int64 { v, _ := a.get(key).(int64); return v }

// Ints returns an []int64 attribute.
func (a Attrs) Ints(key string) []int64 { v, _ := a.get(key).([]int64); return v }

// Float returns a float64 attribute.
func (a Attrs) Float(key string) float64 { v, _ := a.get(key).(float64); return v }

// Bool returns a bool attribute.
func (a Attrs) Bool(key string) bool { v, _ := a.get(key).(bool); return v }

// Str returns a string attribute.
func (a Attrs) Str(key string) string { v, _ := a.get(key).(string); return v }

// DType returns a DType attribute.
func (a Attrs) DType(key string) DType { v, _ := a.get(key).(DType); return v }

// Lit returns a literal attribute.
func (a Attrs) Lit(key string) *hlo.Literal { v, _ := a.get(key).(*hlo.Literal); return v }

func (a Attrs) hashInto(h *hasher) { a.hash(h, true) }

// hash is hashInto; literals add their elements only with literalData
// (what a device supports depends on a constant's type, not its value).
func (a Attrs) hash(h *hasher, literalData bool) {
	h.int(len(a))
	for _, x := range a {
		h.str(x.Key)
		switch v := x.Val.(type) {
		case int64:
			h.u64(1)
			h.i64(v)
		case []int64:
			h.u64(2)
			h.ints(v)
		case float64:
			h.u64(3)
			h.f64(v)
		case bool:
			h.u64(4)
			h.bool(v)
		case string:
			h.u64(5)
			h.str(v)
		case DType:
			h.u64(6)
			h.u64(uint64(v))
		case *hlo.Literal:
			h.u64(7)
			h.u64(uint64(v.DType))
			h.ints(v.Dims)
			if literalData {
				h.bytes(v.Data)
			}
		default:
			panic(bugf("attribute %s has unsupported type %T", x.Key, v))
		}
	}
}

// String prints "key=value, ..." (values as FormatAttr writes them).
func (a Attrs) String() string {
	var b strings.Builder
	for i, x := range a {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(x.Key)
		b.WriteByte('=')
		b.WriteString(FormatAttr(x.Val))
	}
	return b.String()
}

// FormatAttr prints an attribute value in the text form of graphs, the
// one form lazy's IR printer and fx's printer write and fx's parser reads:
// 3, [2, 2], 1.0 (a float keeps its point; nan, inf, -inf), true, "quoted",
// dtype(f32), and literals as FormatLiteral writes them.
func FormatAttr(v any) string {
	switch v := v.(type) {
	case int64:
		return strconv.FormatInt(v, 10)
	case []int64:
		s := make([]string, len(v))
		for i, x := range v {
			s[i] = strconv.FormatInt(x, 10)
		}
		return "[" + strings.Join(s, ", ") + "]"
	case float64:
		switch {
		case math.IsNaN(v):
			return "nan"
		case math.IsInf(v, 1):
			return "inf"
		case math.IsInf(v, -1):
			return "-inf"
		}
		s := strconv.FormatFloat(v, 'g', -1, 64)
		if !strings.ContainsAny(s, ".e") {
			s += ".0"
		}
		return s
	case bool:
		return strconv.FormatBool(v)
	case string:
		return strconv.Quote(v)
	case DType:
		return "dtype(" + v.String() + ")"
	case *hlo.Literal:
		return FormatLiteral(v)
	}
	return fmt.Sprintf("<%T>", v)
}

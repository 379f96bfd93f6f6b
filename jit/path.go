package jit

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// A path names a place inside a traced function's arguments: "arg 0"
// followed by one element per struct field, slice or array element or map
// key, each after a dot ("arg 0.Blocks.1.Wqkv"). Explain, the recompile
// reasons and the trace warnings print paths; package nn names a model's
// parameters with the same elements without the "arg N." prefix
// ("Blocks.1.Wqkv"), so a parameter name (and a checkpoint key) is what
// Explain prints. The functions below are the one definition of the
// elements; nn calls them with an empty path.

// argPath is the path of argument i.
func argPath(i int) string { return "arg " + strconv.Itoa(i) }

// FieldPath returns path extended by struct field f. The element is the
// name given by an `nn:"name"` tag when there is one (nn's tag; options
// after a comma and the name "-" leave the Go name), else the Go field
// name. An embedded field without a tag adds no element: its fields are
// named as if they were the outer struct's, as Go promotes them.
func FieldPath(path string, f reflect.StructField) string {
	tag, tagged := f.Tag.Lookup("nn")
	name, _, _ := strings.Cut(tag, ",")
	switch {
	case !tagged && f.Anonymous:
		return path
	case name == "" || name == "-":
		name = f.Name
	}
	return joinPath(path, name)
}

// IndexPath returns path extended by element i of a slice or array.
func IndexPath(path string, i int) string { return joinPath(path, strconv.Itoa(i)) }

// KeyPath returns path extended by the element of a map under key (printed
// as fmt's %v prints it). Jit arguments hold no maps; nn models may.
func KeyPath(path string, key any) string { return joinPath(path, fmt.Sprint(key)) }

func joinPath(path, elem string) string {
	if path == "" {
		return elem
	}
	return path + "." + elem
}

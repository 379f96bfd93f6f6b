package host

import (
	"fmt"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// ExecuteReading is Execute for a caller that reads the last nRead results
// at once and drops them (a program's check flags, read after every
// execution): their bytes are appended to dst, and their storage goes back
// to the program's pool instead of into buffers, so that from the third
// execution on they cost no allocation (a program keeps its pool from its
// second execution on: retained.go). The other results are appended to
// out as buffers (out may be the caller's reused list).
func (e *Executable) ExecuteReading(args []pjrt.Buffer, opts pjrt.ExecuteOptions, out []pjrt.Buffer, nRead int, dst []byte) ([]pjrt.Buffer, []byte, error) {
	// What is read is checked before the program runs (and takes the
	// donated arguments).
	fn := e.prog.entry.fn
	if nRead < 0 || nRead > len(fn.ResultTypes) {
		return out, dst, fmt.Errorf("host: reading %d of the %d results of @%s", nRead, len(fn.ResultTypes), fn.Name)
	}
	for i := len(fn.ResultTypes) - nRead; i < len(fn.ResultTypes); i++ {
		if _, ok := fn.ResultTypes[i].(*hlo.TensorType); !ok {
			return out, dst, fmt.Errorf("host: result %d of @%s read as bytes is not a tensor", i, fn.Name)
		}
	}
	r, res, err := e.run(args, &opts)
	if err != nil {
		return out, dst, err
	}
	read := res[len(res)-nRead:]
	for _, v := range read {
		dst = append(dst, v.(*hlo.Literal).Data...)
	}
	out = e.wrapInto(out, res[:len(res)-nRead], opts.Device)
	r.poolDonated(res)
	for i, v := range read {
		if l := v.(*hlo.Literal); ownResult(l, res, len(res)-nRead+i) {
			r.pool.Put(l)
		}
	}
	e.prog.putRun(r)
	return out, dst, nil
}

// ownResult reports whether result k, l, is storage no other result shares
// (results never share storage with arguments the caller keeps or with
// constants: Program.copyOut copies those).
func ownResult(l *hlo.Literal, res []kernel.Value, k int) bool {
	if len(l.Data) == 0 {
		return false
	}
	for i, v := range res {
		if i == k {
			continue
		}
		if o, ok := v.(*hlo.Literal); ok && (o == l || len(o.Data) > 0 && &o.Data[0] == &l.Data[0]) {
			return false
		}
	}
	return true
}

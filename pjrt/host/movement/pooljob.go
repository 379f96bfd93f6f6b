package movement

import (
	"sync"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// poolJob is one parallel loop of a pooling kernel (reduce_window or
// select_and_scatter over the planes of a poolShape): its operands, its
// stopper, and its body, a function of the job rather than a closure over
// the caller's locals. Jobs are pooled with their loop function bound
// once, so that a pooling step allocates nothing per execution for its
// loop.
type poolJob struct {
	stop               stopper
	body               func(j *poolJob, lo, hi int)
	p                  *poolShape
	ro                 *reduceWindowOp
	so                 *selectScatterOp
	out, in, src, init *hlo.Literal
	// mask, when set, masks each chunk of a 2x2 select_and_scatter:
	// out = mask > 0 ? out : maskFill, or with maskLE,
	// out = mask <= 0 ? maskFill : out (select_group.go).
	mask     *hlo.Literal
	maskFill float32
	maskLE   bool
	iv       []byte
	typed    bool
	fn       func(lo, hi int)
}

var poolJobs = sync.Pool{New: func() any {
	j := new(poolJob)
	j.fn = j.run
	return j
}}

// getPoolJob returns a cleared job whose stopper polls x.
func getPoolJob(x *kernel.Ctx, p *poolShape, body func(j *poolJob, lo, hi int)) *poolJob {
	j := poolJobs.Get().(*poolJob)
	j.stop.x, j.p, j.body = x, p, body
	return j
}

// loop runs the job's body over [0, n) in parallel chunks of at least
// grain and returns the stopper's error (nil unless the run was canceled).
func (j *poolJob) loop(n, grain int, op *hlo.Op) error {
	parallelFor(n, grain, j.fn)
	return j.stop.err(op)
}

// put drops the job's references and pools it.
func (j *poolJob) put() {
	fn := j.fn
	*j = poolJob{fn: fn}
	poolJobs.Put(j)
}

func (j *poolJob) run(lo, hi int) {
	if j.stop.stopped() {
		return
	}
	j.body(j, lo, hi)
}

// reducePoolRows is runReducePool's loop body.
func reducePoolRows(j *poolJob, lo, hi int) {
	ro, p, dt := j.ro, j.p, j.out.DType
	k := ro.body.kind
	switch {
	case j.typed && dt == hlo.F32:
		reduce2x2(p, k, asT[float32](j.out.Data), asT[float32](j.in.Data), asT[float32](j.iv)[0], lo, hi)
	case j.typed:
		reduce2x2(p, k, asT[float64](j.out.Data), asT[float64](j.in.Data), asT[float64](j.iv)[0], lo, hi)
	default:
		p.reduceRows(ro.acc, j.out.Data, j.in.Data, j.iv, lo, hi)
	}
}

// select2x2Rows is runSelectPool's loop body for 2x2 tiles.
func select2x2Rows(j *poolJob, lo, hi int) {
	so, p := j.so, j.p
	if so.dt == hlo.F32 {
		out := asT[float32](j.out.Data)
		select2x2(p, so.selDir, out, asT[float32](j.in.Data), asT[float32](j.src.Data), asT[float32](j.init.Data)[0], lo, hi)
		if j.mask != nil {
			// Window rows [lo, hi) cover operand rows [2lo, 2hi).
			o, m := out[2*lo*p.w:2*hi*p.w], asT[float32](j.mask.Data)[2*lo*p.w:2*hi*p.w]
			if j.maskLE {
				maskLE0(o, m, j.maskFill)
			} else {
				maskGT0(o, m, j.maskFill)
			}
		}
	} else {
		select2x2(p, so.selDir, asT[float64](j.out.Data), asT[float64](j.in.Data), asT[float64](j.src.Data), asT[float64](j.init.Data)[0], lo, hi)
	}
}

// selectPlaneRows is runSelectPool's loop body over whole planes.
func selectPlaneRows(j *poolJob, lo, hi int) {
	so, p := j.so, j.p
	switch {
	case so.typed && so.dt == hlo.F32:
		selectPlanesT(p, so.selDir, asT[float32](j.out.Data), asT[float32](j.in.Data), asT[float32](j.src.Data), lo, hi)
	case so.typed && so.dt == hlo.F64:
		selectPlanesT(p, so.selDir, asT[float64](j.out.Data), asT[float64](j.in.Data), asT[float64](j.src.Data), lo, hi)
	default:
		p.selectPlanes(so.selFast, so.acc, j.out.Data, j.in.Data, j.src.Data, lo, hi)
	}
}

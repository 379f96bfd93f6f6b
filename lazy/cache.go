package lazy

import (
	"container/list"
	"errors"
	"fmt"
	"log"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/xlajit/xlajit/hlo"
	"github.com/xlajit/xlajit/internal/refs"
	"github.com/xlajit/xlajit/pjrt"
)

// DefaultCacheSize is the compile cache's default capacity
// (XLAJIT_COMPILATION_CACHE_SIZE overrides it).
const DefaultCacheSize = 2048

func cacheSizeFromEnv() int {
	if s := os.Getenv("XLAJIT_COMPILATION_CACHE_SIZE"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n > 0 {
			return n
		}
		log.Printf("xlajit: ignoring XLAJIT_COMPILATION_CACHE_SIZE=%q (want a positive integer)", s)
	}
	return DefaultCacheSize
}

// Executable is a compiled graph in the compile cache.
type Executable struct {
	Hash    Hash
	Module  *hlo.Module
	NParams int
	NOut    int // results, not counting the run-time check flags

	exe     pjrt.Executable
	dev     *Device
	graph   *Graph // the graph it was built for (dumps)
	evicted atomic.Bool
	// checks are the messages of the program's run-time checks (checks.go).
	checks []string
	// pre is the program of the checks alone, run before an execution
	// that donates inputs (built on first use).
	preOnce sync.Once
	pre     *preCheck
	// stop is the origin of the results a run hands out (see gradStop).
	stopOnce sync.Once
	stop     *Node
}

// gradStop returns the node the results of x's runs name as their origin:
// where the history Grad follows ends. A run of a compiled program keeps
// no IR of what it computed, so Grad sees its results as leaves; when no
// x gets a gradient and y's gradient reached such a stop, Grad reports
// the gradient unknown rather than zero (gradStoppedAt). One node per
// executable, made on the first run.
func (x *Executable) gradStop(outs []pjrt.Buffer) *Node {
	x.stopOnce.Do(func() {
		n := &Node{op: compiledResultOp, attrs: Attrs{{"graph", x.Hash.String()}}}
		for _, b := range outs {
			n.out = append(n.out, bufferShape(b))
		}
		x.stop = n
	})
	return x.stop
}

// Evicted reports whether the compile cache dropped x (a holder should
// compile again through Compile rather than keep it alive).
func (x *Executable) Evicted() bool { return x.evicted.Load() }

// compileCache is an LRU of executables keyed by graph hash.
type compileCache struct {
	mu    sync.Mutex
	cap   int
	order *list.List // front = most recent
	items map[Hash]*list.Element
	// inflight dedupes concurrent compiles of one hash.
	inflight map[Hash]*sync.WaitGroup
}

func newCompileCache(capacity int) *compileCache {
	return &compileCache{cap: capacity, order: list.New(), items: map[Hash]*list.Element{}, inflight: map[Hash]*sync.WaitGroup{}}
}

func (c *compileCache) get(h Hash) *Executable {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[h]; ok {
		c.order.MoveToFront(e)
		return e.Value.(*Executable)
	}
	return nil
}

func (c *compileCache) put(x *Executable) {
	c.mu.Lock()
	if e, ok := c.items[x.Hash]; ok {
		e.Value = x
		c.order.MoveToFront(e)
		c.mu.Unlock()
		return
	}
	c.items[x.Hash] = c.order.PushFront(x)
	c.trimLocked()
	c.mu.Unlock()
	// Recorded outside c.mu: a dropped scope takes c.mu under its own.
	if sc := currentScope(); sc != nil {
		// Work that may be undone (a trace): its entry goes with it.
		sc.mu.Lock()
		sc.added = append(sc.added, cacheAdd{c, x})
		sc.mu.Unlock()
	}
}

// drop removes x if it is still the entry of its hash.
func (c *compileCache) drop(x *Executable) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[x.Hash]; ok && e.Value == x {
		c.order.Remove(e)
		delete(c.items, x.Hash)
	}
}

// Len is the number of cached executables.
func (c *compileCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}

// CacheLen returns the number of executables in dev's compile cache.
func CacheLen(dev *Device) int { return dev.state.cache.Len() }

// SetCacheSize changes the capacity of dev's compile cache, evicting the
// least recently used entries if needed.
func SetCacheSize(dev *Device, n int) {
	c := dev.state.cache
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cap = max(n, 1)
	c.trimLocked()
}

func (c *compileCache) trimLocked() {
	for c.order.Len() > c.cap {
		old := c.order.Back()
		c.order.Remove(old)
		x := old.Value.(*Executable)
		delete(c.items, x.Hash)
		x.evicted.Store(true)
	}
}

// compileGraph returns the executable of g on dev: from the compile cache
// (CachedCompile), the persistent cache, or by lowering g and compiling
// (UncachedCompile, CompileTime). Nothing executes. Concurrent calls for
// one hash compile once. fresh reports whether this call compiled.
func compileGraph(dev *Device, g *Graph, name string) (x *Executable, fresh bool, err error) {
	h := g.Hash
	mv, _ := dev.client.(pjrt.ModuleVerifier)
	verify := mv == nil || !mv.VerifiesModules()
	build := func() (*hlo.Module, error) { return g.lower(name+"_"+h.String()[:16], verify) }
	c := dev.state.cache
	for {
		if x := c.get(h); x != nil {
			cCached.add(1)
			if debugLevel() >= 2 {
				if err := checkCollision(x, build); err != nil {
					return nil, false, err
				}
			}
			return x, false, nil
		}
		c.mu.Lock()
		if wg, busy := c.inflight[h]; busy {
			c.mu.Unlock()
			wg.Wait()
			continue
		}
		wg := &sync.WaitGroup{}
		wg.Add(1)
		c.inflight[h] = wg
		c.mu.Unlock()
		var x *Executable
		err := errors.New("lazy: compile panicked")
		func() {
			// A panic in build (a bug in a lowering) goes on, but
			// the waiters are released first: they retry and see it.
			defer func() {
				c.mu.Lock()
				delete(c.inflight, h)
				c.mu.Unlock()
				if err == nil {
					c.put(x)
				}
				wg.Done()
			}()
			x, err = compileNew(dev, g, build)
		}()
		return x, err == nil, err
	}
}

func compileNew(dev *Device, g *Graph, build func() (*hlo.Module, error)) (*Executable, error) {
	start := time.Now()
	h, sig := g.Hash, graphSignature(g)
	if m, ok := persistentLoad(h, sig); ok {
		if debugLevel() >= 2 {
			// A hit read from disk is compared too (DESIGN: a collision
			// is an error, not a wrong answer).
			if err := checkCollision(&Executable{Hash: h, Module: m}, build); err != nil {
				return nil, err
			}
		}
		if x, err := compileModule(dev, g, m); err == nil {
			cPersistHit.add(1)
			tCompile.since(start)
			logCompile(x, "persistent cache", start)
			return x, nil
		} else {
			log.Printf("xlajit: warning: persistent cache entry %s does not compile (%v); recompiling", h, err)
		}
	}
	m, err := build()
	if err != nil {
		return nil, err
	}
	x, err := compileModule(dev, g, m)
	if err != nil {
		return nil, err
	}
	cUncached.add(1)
	tCompile.since(start)
	logCompile(x, "compiled", start)
	persistentStore(h, sig, m)
	return x, nil
}

// logCompile is XLAJIT_DEBUG's one line per compile.
func logCompile(x *Executable, how string, start time.Time) {
	if debugLevel() >= 1 {
		log.Printf("xlajit: compile graph %s: %s, %d params, %d outputs, %v", x.Hash, how, x.NParams, x.NOut, time.Since(start))
	}
}

func compileModule(dev *Device, g *Graph, m *hlo.Module) (*Executable, error) {
	exe, err := dev.client.Compile(m, dev.CompileOptions())
	if err != nil {
		return nil, fmt.Errorf("compiling graph %s: %w", g.Hash, err)
	}
	e := m.Entry()
	checks := moduleChecks(m)
	notePartition(exe)
	nout := exe.NumOutputs()
	if len(checks) > 0 {
		nout--
	}
	x := &Executable{Hash: g.Hash, exe: exe, dev: dev, Module: m, NParams: len(e.Args), NOut: nout, checks: checks}
	// The IR is kept only where it is read again (the pre-check of a
	// program with checks, the dumps): the compile cache would keep every
	// program's IR alive, for the collector to walk on every cycle.
	if g.keptByExecutable() {
		x.graph = g.detached()
	}
	return x, nil
}

// detached returns g recorded again over placeholders: each device-data
// leaf a symbolic one of its shape (hashing as it did), every other node
// copied over them (Rerecord). An executable that keeps its graph (for
// its checks' pre-check) must not keep the graph's input buffers, and the
// tensors made with its nodes, alive in the compile cache. g itself comes
// back where a copy would not be g: while dumping (the dumps print the
// graph that ran), for SPMD graphs (their leaves carry layouts), and when
// a node reads a host node's computed result.
func (g *Graph) detached() *Graph {
	if dumping || g.spmd > 0 || len(g.Host) > 0 {
		return g
	}
	var r Rerecorder
	copyOf := make(map[*Node]*Node, len(g.Nodes))
	dataOf := map[*deviceData]*deviceData{} // one placeholder per buffer
	c := *g
	c.Nodes = make([]*Node, 0, len(g.Nodes))
	c.ParamOf = make(map[*Node]int, len(g.ParamOf))
	var ins []Value
	for _, n := range g.Nodes {
		var x *Node
		if n.data != nil {
			d := dataOf[n.data]
			if d == nil {
				d = &deviceData{dev: n.data.dev}
				dataOf[n.data] = d
			}
			x = newDataNode(d, nil, detachedShape(n.out[0]))
			if x.hash != n.hash {
				return g
			}
			c.ParamOf[x] = g.ParamOf[n]
		} else {
			ins = ins[:0]
			for _, in := range n.inputs {
				in = substitute(in)
				ins = append(ins, Value{copyOf[in.Node], in.Index})
			}
			var ok bool
			if x, ok = r.Rerecord(n, ins); !ok {
				return g
			}
			// The copy shares n's attributes and shapes, which may sit
			// in one allocation with a tensor (a node's cell, a Splat's
			// dims that are its operand's): its own, so that it keeps
			// nothing of the traced call's.
			x.attrs = detachedAttrs(n.attrs)
			out := make([]Shape, len(n.out))
			for i, s := range n.out {
				out[i] = detachedShape(s)
			}
			x.out = out
		}
		copyOf[n] = x
		c.Nodes = append(c.Nodes, x)
	}
	c.Params = make([]*Node, len(g.Params))
	for i, p := range g.Params {
		c.Params[i] = copyOf[p]
	}
	c.Roots = make([]Value, len(g.Roots))
	for i, v := range g.Roots {
		c.Roots[i] = Value{copyOf[v.Node], v.Index}
	}
	return &c
}

// detachedShape is s with dims of its own.
func detachedShape(s Shape) Shape {
	return Shape{DType: s.DType, Dims: slices.Clone(s.Dims)}
}

// detachedAttrs is a with a list and int lists of its own (literals and
// the other values are shared: a literal attribute is an allocation of
// its own, or the caller's).
func detachedAttrs(a Attrs) Attrs {
	if len(a) == 0 {
		return a
	}
	out := slices.Clone(a)
	for i, x := range out {
		if v, ok := x.Val.([]int64); ok {
			out[i].Val = slices.Clone(v)
		}
	}
	return out
}

// Recompile returns the executable of x's program once the compile cache
// has evicted x: the cached one when another holder compiled it again, or
// a copy of x's module (printed and parsed, as the persistent cache keeps
// modules; compiling numbers a module's values, and x may still run)
// compiled again: holders need not keep the IR. Concurrent calls for one
// program compile once. UncachedCompile or CachedCompile counts it.
func (x *Executable) Recompile() (*Executable, error) {
	c := x.dev.state.cache
	for {
		if y := c.get(x.Hash); y != nil {
			cCached.add(1)
			return y, nil
		}
		c.mu.Lock()
		if wg, busy := c.inflight[x.Hash]; busy {
			c.mu.Unlock()
			wg.Wait()
			continue
		}
		wg := &sync.WaitGroup{}
		wg.Add(1)
		c.inflight[x.Hash] = wg
		c.mu.Unlock()
		var y *Executable
		err := errors.New("lazy: compile panicked")
		func() {
			defer func() {
				c.mu.Lock()
				delete(c.inflight, x.Hash)
				c.mu.Unlock()
				if err == nil {
					c.put(y)
				}
				wg.Done()
			}()
			y, err = x.compileAgain()
		}()
		return y, err
	}
}

func (x *Executable) compileAgain() (*Executable, error) {
	if x.Module == nil {
		return nil, fmt.Errorf("lazy: program %s was evicted and has no module to compile again", x.Hash)
	}
	start := time.Now()
	m, err := hlo.ParseModule(x.Hash.String(), []byte(x.Module.String()))
	if err != nil {
		return nil, fmt.Errorf("lazy: program %s does not parse back to compile again: %w", x.Hash, err)
	}
	g := x.graph
	if g == nil {
		g = &Graph{Hash: x.Hash}
	}
	y, err := compileModule(x.dev, g, m)
	if err != nil {
		return nil, err
	}
	cUncached.add(1)
	tCompile.since(start)
	logCompile(y, "compiled again", start)
	return y, nil
}

func checkCollision(x *Executable, build func() (*hlo.Module, error)) error {
	m, err := build()
	if err != nil {
		return err
	}
	if x.Module != nil && m.String() != x.Module.String() {
		return fmt.Errorf("lazy: graph hash collision on %s: two different programs share one hash", x.Hash)
	}
	return nil
}

// Execute runs the executable (ExecuteCount, ExecuteTime). Buffers listed
// in donate may be consumed. The debug dumps record every execution.
func (x *Executable) Execute(args []pjrt.Buffer, donate []int) ([]pjrt.Buffer, error) {
	return x.execute(nil, args, donate)
}

// execute is Execute with sc's lists, when sc is not nil: on a device that
// reads results as bytes (resultReader), a program with checks or several
// outputs reads its flags into sc.flags and appends its buffers to
// sc.outs; the buffer list is then valid until sc is put back.
func (x *Executable) execute(sc *runScratch, args []pjrt.Buffer, donate []int) ([]pjrt.Buffer, error) {
	if dumping {
		saveGraph(x.graph, x)
	}
	if len(donate) > 0 && len(x.checks) > 0 {
		// A failed check must leave the inputs as they were: run the checks
		// alone first, then the program (whose own flags then hold).
		if err := x.runPreCheck(args); err != nil {
			return nil, err
		}
	}
	start := nanotime()
	var out []pjrt.Buffer
	var err error
	if x.dev.spmd > 0 {
		out, err = x.executeSPMD(args) // donation is not used across devices
	} else if rr := x.reader(sc); rr != nil {
		n := 0
		if len(x.checks) > 0 {
			n = 1
		}
		out, sc.flags, err = rr.ExecuteReading(args, pjrt.ExecuteOptions{Device: x.dev.ord, Donate: donate}, sc.outs[:0], n, sc.flags[:0])
		sc.outs = out
		tExecute.sinceNano(start)
		if err == nil && n > 0 {
			if err = checkFlags(x.checks, sc.flags); err != nil {
				for _, b := range out {
					b.Delete()
				}
				return nil, err
			}
		}
		return out, err
	} else {
		out, err = x.exe.Execute(args, pjrt.ExecuteOptions{Device: x.dev.ord, Donate: donate})
	}
	tExecute.sinceNano(start) // counts ExecuteCount too
	if err == nil && len(x.checks) > 0 {
		return verifyChecks(x.checks, out)
	}
	return out, err
}

// reader is x's executable as a resultReader when an execution with sc
// reads through it (a program with checks or several outputs), else nil.
func (x *Executable) reader(sc *runScratch) resultReader {
	if sc == nil || len(x.checks) == 0 && x.NOut <= 1 {
		return nil
	}
	rr, _ := x.exe.(resultReader)
	return rr
}

// CompileGraph finds or compiles g's executable on dev by its hash (nothing
// executes); fresh reports whether this call compiled it.
func CompileGraph(dev *Device, g *Graph, name string) (x *Executable, fresh bool, err error) {
	return compileGraph(dev, g, name)
}

// Run executes x on the buffers of ins (pending inputs are computed first,
// as a cut) and returns one new materialized tensor per output.
func (x *Executable) Run(ins []*Tensor) ([]*Tensor, error) { return x.RunDonating(ins, nil) }

// RunDonating is Run where overwritten[i] says the caller will overwrite
// ins[i] with a result: its buffer is donated to the device when that
// tensor is its only holder, it appears once among the inputs, and no IR
// was ever built on it (so no pending computation can need it).
func (x *Executable) RunDonating(ins []*Tensor, overwritten []bool) ([]*Tensor, error) {
	return x.RunDonatingInto(nil, ins, overwritten)
}

// RunDonatingInto is RunDonating appending the results to dst (a caller's
// buffer: the result list then costs no allocation).
func (x *Executable) RunDonatingInto(dst []*Tensor, ins []*Tensor, overwritten []bool) ([]*Tensor, error) {
	sc := runPool.Get().(*runScratch)
	defer sc.put()
	if cap(sc.bufs) < len(ins) {
		sc.bufs = make([]pjrt.Buffer, len(ins))
	}
	sc.bufs = sc.bufs[:len(ins)] // every element is set below; put dropped the last run's
	bufs := sc.bufs
	for _, t := range ins {
		if t.data == nil {
			// Every pending input in one graph.
			if err := syncTensors("internal:JitInput", ins); err != nil {
				return nil, err
			}
			break
		}
	}
	for i, t := range ins {
		if t.dev != x.dev {
			return nil, fmt.Errorf("lazy: input %d is on %s, the program on %s", i, t.dev, x.dev)
		}
		bufs[i] = t.data.buf
	}
	donate := sc.donate[:0]
	if !anyTrace() && x.dev.spmd == 0 {
		for i, ow := range overwritten {
			if ow && canDonate(ins, i) {
				donate = append(donate, i)
			}
		}
	}
	sc.donate = donate
	outs, err := x.execute(sc, bufs, donate)
	if err != nil {
		return nil, err
	}
	if len(donate) > 0 {
		cDonated.add(int64(len(donate)))
	}
	stop := x.gradStop(outs)
	if len(outs) == 1 && dst == nil {
		// One allocation for the result, its data and the result list.
		a := &oneResult{}
		a.t.init(outs[0], bufferShape(outs[0]), x.dev)
		a.t.t.origin = Value{stop, 0}
		a.res[0] = &a.t.t
		return a.res[:], nil
	}
	// The results and their data in one allocation.
	block := make([]tensorWithData, len(outs))
	if dst == nil {
		dst = make([]*Tensor, 0, len(outs))
	}
	for i, b := range outs {
		block[i].init(b, bufferShape(b), x.dev)
		block[i].t.origin = Value{stop, i}
		dst = append(dst, &block[i].t)
	}
	return dst, nil
}

// runScratch is an execution's argument buffers and donation list, pooled
// so that a replay allocates neither.
type runScratch struct {
	bufs   []pjrt.Buffer
	donate []int
	outs   []pjrt.Buffer // the results (Executable.execute)
	flags  []byte        // the check flags read (Executable.execute)
}

// runPool keeps scratch per P: taking and giving back one takes no locked
// instruction, where a shared slot would take two per execution.
var runPool = sync.Pool{New: func() any { return new(runScratch) }}

// put drops the buffers' references and pools sc.
func (sc *runScratch) put() {
	refs.Drop(sc.bufs)
	sc.bufs, sc.donate = sc.bufs[:0], sc.donate[:0]
	if len(sc.outs) > 0 {
		refs.Drop(sc.outs)
		sc.outs = sc.outs[:0]
	}
	runPool.Put(sc)
}

func canDonate(ins []*Tensor, i int) bool {
	d := ins[i].data
	if d.holders.Load() != 1 {
		return false
	}
	for j, t := range ins {
		if j != i && t.data == d {
			return false
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.leaves()) == 0
}

package lazy

import (
	"bytes"
	"container/list"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/xlajit/xlajit/hlo"
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
	// What a run reads, first (one cache line).
	exe     pjrt.Executable
	dev     *Device
	evicted atomic.Bool

	Hash    Hash
	Module  *hlo.Module
	NParams int
	NOut    int
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
	defer c.mu.Unlock()
	if e, ok := c.items[x.Hash]; ok {
		e.Value = x
		c.order.MoveToFront(e)
		return
	}
	c.items[x.Hash] = c.order.PushFront(x)
	c.trimLocked()
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

// Compile returns the executable for hash h on dev: from the compile cache
// (CachedCompile), the persistent cache, or by calling build and compiling
// (UncachedCompile, CompileTime). Nothing executes. Concurrent calls for one
// hash compile once.
func Compile(dev *Device, h Hash, build func() (*hlo.Module, error)) (*Executable, error) {
	x, _, err := compileFresh(dev, h, build)
	return x, err
}

// compileFresh is Compile, also reporting whether this call compiled.
func compileFresh(dev *Device, h Hash, build func() (*hlo.Module, error)) (*Executable, bool, error) {
	c := dev.state.cache
	for {
		if x := c.get(h); x != nil {
			cCached.v.Add(1)
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
			x, err = compileNew(dev, h, build)
		}()
		return x, err == nil, err
	}
}

func compileNew(dev *Device, h Hash, build func() (*hlo.Module, error)) (*Executable, error) {
	start := time.Now()
	if m, ok := persistentLoad(h); ok {
		if x, err := compileModule(dev, h, m); err == nil {
			cPersistHit.v.Add(1)
			tCompile.since(start)
			return x, nil
		} else {
			log.Printf("xlajit: persistent cache entry %s does not compile (%v); recompiling", h, err)
		}
	}
	m, err := build()
	if err != nil {
		return nil, err
	}
	x, err := compileModule(dev, h, m)
	if err != nil {
		return nil, err
	}
	cUncached.v.Add(1)
	tCompile.since(start)
	persistentStore(h, m)
	return x, nil
}

func compileModule(dev *Device, h Hash, m *hlo.Module) (*Executable, error) {
	exe, err := dev.client.Compile(m, pjrt.CompileOptions{})
	if err != nil {
		return nil, fmt.Errorf("compiling graph %s: %w", h, err)
	}
	e := m.Entry()
	return &Executable{Hash: h, exe: exe, dev: dev, Module: m, NParams: len(e.Args), NOut: exe.NumOutputs()}, nil
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
// in donate may be consumed.
func (x *Executable) Execute(args []pjrt.Buffer, donate []int) ([]pjrt.Buffer, error) {
	start := nanotime()
	out, err := x.exe.Execute(args, pjrt.ExecuteOptions{Device: x.dev.ord, Donate: donate})
	cExecute.v.Add(1)
	tExecute.sinceNano(start)
	return out, err
}

// --- persistent cache ---

const persistMagic = "xlajit-cache v1"

func persistentDir() string { return os.Getenv("XLAJIT_PERSISTENT_CACHE_PATH") }

func persistentPath(dir string, h Hash) string { return filepath.Join(dir, h.String()+".mlir") }

// persistentLoad reads and checks an entry; a corrupt or truncated entry is
// reported with a warning and ignored.
func persistentLoad(h Hash) (*hlo.Module, bool) {
	dir := persistentDir()
	if dir == "" {
		return nil, false
	}
	p := persistentPath(dir, h)
	raw, err := os.ReadFile(p)
	if err != nil {
		return nil, false
	}
	body, ok := checkEntry(raw, h)
	if !ok {
		log.Printf("xlajit: warning: persistent cache entry %s is corrupt or truncated; recompiling", p)
		return nil, false
	}
	m, err := hlo.ParseModule(p, body)
	if err != nil {
		log.Printf("xlajit: warning: persistent cache entry %s does not parse (%v); recompiling", p, err)
		return nil, false
	}
	return m, true
}

func checkEntry(raw []byte, h Hash) ([]byte, bool) {
	nl := bytes.IndexByte(raw, '\n')
	if nl < 0 {
		return nil, false
	}
	var magic1, magic2, hs, sum string
	if n, _ := fmt.Sscanf(string(raw[:nl]), "%s %s %s %s", &magic1, &magic2, &hs, &sum); n != 4 {
		return nil, false
	}
	body := raw[nl+1:]
	got := sha256.Sum256(body)
	return body, magic1+" "+magic2 == persistMagic && hs == h.String() && sum == hex.EncodeToString(got[:])
}

func persistentStore(h Hash, m *hlo.Module) {
	dir := persistentDir()
	if dir == "" {
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		log.Printf("xlajit: warning: persistent cache: %v", err)
		return
	}
	body := []byte(m.String())
	sum := sha256.Sum256(body)
	data := append([]byte(fmt.Sprintf("%s %s %s\n", persistMagic, h, hex.EncodeToString(sum[:]))), body...)
	p := persistentPath(dir, h)
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		log.Printf("xlajit: warning: persistent cache: %v", err)
		return
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		log.Printf("xlajit: warning: persistent cache: %v", err)
		return
	}
	tmp.Close()
	if err := os.Rename(tmp.Name(), p); err != nil {
		os.Remove(tmp.Name())
		log.Printf("xlajit: warning: persistent cache: %v", err)
	}
}

// CompileGraph finds or compiles g's executable on dev by its hash (nothing
// executes); fresh reports whether this call compiled it.
func CompileGraph(dev *Device, g *Graph, name string) (x *Executable, fresh bool, err error) {
	return compileFresh(dev, g.Hash, func() (*hlo.Module, error) { return g.Lower(name + "_" + g.Hash.String()[:16]) })
}

// Run executes x on the buffers of ins (pending inputs are computed first,
// as a cut) and returns one new materialized tensor per output.
func (x *Executable) Run(ins []*Tensor) ([]*Tensor, error) { return x.RunDonating(ins, nil) }

// RunDonating is Run where overwritten[i] says the caller will overwrite
// ins[i] with a result: its buffer is donated to the device when that
// tensor is its only holder, it appears once among the inputs, and no IR
// was ever built on it (so no pending computation can need it).
func (x *Executable) RunDonating(ins []*Tensor, overwritten []bool) ([]*Tensor, error) {
	bp := bufPool.Get().(*[]pjrt.Buffer)
	defer func() { clear(*bp); bufPool.Put(bp) }()
	if cap(*bp) < len(ins) {
		*bp = make([]pjrt.Buffer, len(ins))
	}
	bufs := (*bp)[:len(ins)]
	for i, t := range ins {
		if t.data == nil {
			if err := syncTensors("internal:JitInput", []*Tensor{t}); err != nil {
				return nil, err
			}
		}
		if t.dev != x.dev {
			return nil, fmt.Errorf("lazy: input %d is on %s, the program on %s", i, t.dev, x.dev)
		}
		bufs[i] = t.data.buf
	}
	var donate []int
	if activeTrace.Load() == nil {
		for i, ow := range overwritten {
			if ow && canDonate(ins, i) {
				donate = append(donate, i)
			}
		}
	}
	outs, err := x.Execute(bufs, donate)
	if err != nil {
		return nil, err
	}
	cDonated.v.Add(int64(len(donate)))
	if len(outs) == 1 {
		// One allocation for the result, its data and the result list.
		a := &oneResult{}
		a.t.init(outs[0], bufferShape(outs[0]), x.dev)
		a.res[0] = &a.t.t
		return a.res[:], nil
	}
	res := make([]*Tensor, len(outs))
	for i, b := range outs {
		res[i] = newMaterialized(b, bufferShape(b), x.dev)
	}
	return res, nil
}

var bufPool = sync.Pool{New: func() any { return new([]pjrt.Buffer) }}

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
	return len(d.leaves) == 0
}

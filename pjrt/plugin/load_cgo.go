//go:build cgo

package plugin

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"unsafe"

	xpjrt "github.com/gomlx/go-xla/pjrt"

	"github.com/xlajit/xlajit/pjrt"
)

func init() {
	pjrt.Register("PLUGIN", func(spec string) (pjrt.Client, error) {
		c, err := OpenClient(spec)
		if err != nil {
			return nil, err
		}
		return c, nil
	})
}

// loaded is a plugin that passed every check and that go-xla initialised.
type loaded struct {
	lib   *library
	xp    *xpjrt.Plugin
	attrs map[string]string
}

var (
	loadMu    sync.Mutex
	loadCache = map[string]*loaded{}
)

// guard runs a go-xla call, turning its error or panic into a LoadError.
func guard(path, what string, fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = loadErr(path, "%s: go-xla panicked: %v", what, r)
		}
	}()
	if e := fn(); e != nil {
		return loadErr(path, "%s: %v", what, e)
	}
	return nil
}

// protect runs a go-xla call after loading, turning a panic into an error.
func protect(what string, fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("pjrt/plugin: %s: go-xla panicked: %v", what, r)
		}
	}()
	return fn()
}

func load(path string) (*loaded, error) {
	loadMu.Lock()
	defer loadMu.Unlock()
	if l := loadCache[path]; l != nil {
		return l, nil
	}
	if err := checkELF(path); err != nil {
		return nil, err
	}
	lib, err := openLibrary(path)
	if err != nil {
		return nil, err
	}
	quietJAXCUDACheck(path)
	var xp *xpjrt.Plugin
	if err := guard(path, "initializing the plugin", func() (e error) {
		// An absolute path makes go-xla load exactly this file and skip its
		// directory search, which panics on broken candidates.
		xp, e = xpjrt.GetPlugin(path)
		return e
	}); err != nil {
		return nil, err
	}
	attrs := map[string]string{}
	for k, v := range xp.Attributes() {
		attrs[k] = fmt.Sprint(v)
	}
	l := &loaded{lib: lib, xp: xp, attrs: attrs}
	loadCache[path] = l
	return l, nil
}

// quietJAXCUDACheck: go-xla looks for CUDA libraries in <plugin>/../../nvidia
// (its installer's layout) and warns at length when they are elsewhere. JAX's
// wheels keep them in site-packages/nvidia, which the plugin finds through
// its own RPATH, so the warning is noise there.
func quietJAXCUDACheck(path string) {
	dir := filepath.Dir(path)
	if strings.HasPrefix(filepath.Base(dir), "xla_cuda") && filepath.Base(filepath.Dir(dir)) == "jax_plugins" {
		if _, set := os.LookupEnv("GOPJRT_CUDA_CHECKS"); !set {
			os.Setenv("GOPJRT_CUDA_CHECKS", "0")
		}
	}
}

// Load finds (see Find), checks and loads a plugin without creating a
// client.
func Load(spec string) (*Info, error) {
	path, err := Find(spec)
	if err != nil {
		return nil, err
	}
	l, err := load(path)
	if err != nil {
		return nil, err
	}
	return &Info{Path: path, API: l.lib.info, Attributes: l.attrs}, nil
}

// Inspect opens a client for spec, describes it and closes it.
func Inspect(spec string) (*Info, error) {
	c, err := OpenClient(spec)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return &Info{
		Path: c.path, API: c.l.lib.info, Attributes: c.l.attrs,
		Platform: c.Platform(), PlatformVersion: c.PlatformVersion(), Devices: c.Devices(),
	}, nil
}

// Open returns a client for a PJRT_DEVICE value (CUDA, TPU, a plugin name
// or a path).
func Open(spec string) (pjrt.Client, error) {
	c, err := OpenClient(spec)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// OpenClient is Open with the concrete type.
func OpenClient(spec string) (*Client, error) {
	path, err := Find(spec)
	if err != nil {
		return nil, err
	}
	l, err := load(path)
	if err != nil {
		return nil, err
	}
	if err := l.lib.require("create a client", needClient); err != nil {
		return nil, err
	}
	opts, err := clientOptions()
	if err != nil {
		return nil, err
	}
	var xc *xpjrt.Client
	if err := guard(path, "creating a PJRT client", func() (e error) {
		xc, e = l.xp.NewClient(xpjrt.NamedValuesMap(opts))
		return e
	}); err != nil {
		return nil, err
	}
	c := &Client{path: path, l: l, xc: xc, platform: xc.Platform()}
	if err := c.initDevices(); err != nil {
		_ = xc.Destroy()
		return nil, err
	}
	return c, nil
}

// devicePointer reads go-xla's unexported PJRT_Device pointer, needed for
// the device functions go-xla does not wrap (kind, id, memory statistics).
// TestDevicePointerField guards the field's existence.
func devicePointer(d *xpjrt.Device) unsafe.Pointer {
	if d == nil {
		return nil
	}
	f := reflect.ValueOf(d).Elem().FieldByName("cDevice")
	if !f.IsValid() || f.Kind() != reflect.Pointer {
		return nil
	}
	return f.UnsafePointer()
}

func (c *Client) initDevices() error {
	devs := c.xc.AddressableDevices()
	if len(devs) == 0 {
		return loadErr(c.path, "the plugin reports no addressable devices")
	}
	c.devs = devs
	c.ids = make([]int, len(devs))
	c.devices = make([]pjrt.Device, len(devs))
	for i, d := range devs {
		ptr := devicePointer(d)
		kind, err := c.l.lib.deviceKind(ptr)
		if err != nil || kind == "" {
			kind = c.platform
			if desc, err := d.GetDescription(); err == nil {
				kind = desc.DebugString()
			}
		}
		id, err := c.l.lib.deviceID(ptr)
		if err != nil {
			id = d.LocalHardwareID()
		}
		c.ids[i] = id
		c.devices[i] = pjrt.Device{ID: i, Platform: c.platform, Kind: kind}
	}
	// A device assignment names PJRT device ids; if the plugin's are not
	// distinct, fall back to the addressable order.
	seen := map[int]bool{}
	for _, id := range c.ids {
		seen[id] = true
	}
	if len(seen) != len(c.ids) {
		for j := range c.ids {
			c.ids[j] = j
		}
	}
	return nil
}

// Installed lists the plugins Discover finds, each loaded and inspected;
// errors are per plugin.
func Installed() []Installation {
	var out []Installation
	for _, cand := range Discover() {
		inst := Installation{Candidate: cand}
		inst.Info, inst.Err = Inspect(cand.Path)
		out = append(out, inst)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

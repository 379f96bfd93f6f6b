package pjrt

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
)

// Opener creates a client for a device spec (the value of PJRT_DEVICE).
type Opener func(spec string) (Client, error)

var (
	regMu   sync.Mutex
	openers = map[string]Opener{}
)

// Register makes an opener available under a PJRT_DEVICE kind. Kinds:
// "CPU" (the embedded device), "PLUGIN" (CUDA, TPU and absolute .so paths).
func Register(kind string, open Opener) {
	regMu.Lock()
	defer regMu.Unlock()
	openers[strings.ToUpper(kind)] = open
}

// Kinds lists registered kinds.
func Kinds() []string {
	regMu.Lock()
	defer regMu.Unlock()
	ks := make([]string, 0, len(openers))
	for k := range openers {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// Open returns a client for spec: "" or "CPU" → the embedded device;
// "CUDA", "TPU" or an absolute path to a .so → a PJRT plugin.
func Open(spec string) (Client, error) {
	kind := "CPU"
	s := strings.TrimSpace(spec)
	if s != "" && !strings.EqualFold(s, "CPU") {
		kind = "PLUGIN"
	}
	regMu.Lock()
	open := openers[kind]
	regMu.Unlock()
	if open == nil {
		if kind == "CPU" {
			return nil, fmt.Errorf("pjrt: no embedded device registered (import github.com/xlajit/xlajit/pjrt/host)")
		}
		return nil, fmt.Errorf("pjrt: PJRT_DEVICE=%q needs the plugin loader (import github.com/xlajit/xlajit/pjrt/plugin, built with cgo)", spec)
	}
	return open(s)
}

var (
	defaultOnce   sync.Once
	defaultClient Client
	defaultErr    error
)

// Default returns the process-wide client chosen by PJRT_DEVICE, opened once.
func Default() (Client, error) {
	defaultOnce.Do(func() {
		defaultClient, defaultErr = Open(os.Getenv("PJRT_DEVICE"))
	})
	return defaultClient, defaultErr
}

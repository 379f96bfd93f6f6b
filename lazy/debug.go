package lazy

import (
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Settings read from the environment, parsed in one place:
//
//	XLAJIT_DEBUG=0..5               verbosity (1: one line per compile; 2: cache hits
//	                                compare canonical HLO text; 3: one line per execute;
//	                                4: print each graph's IR; 5: print its StableHLO)
//	XLAJIT_EAGER=1                  eager mode (a cut after every op)
//	XLAJIT_SAVE_TENSORS_FILE=path   append IR and StableHLO of each executed graph
//	XLAJIT_SAVE_TENSORS_FMT=text|hlo|dot
//	XLAJIT_DUMP_DIR=dir             write <graph hash>.{ir,mlir,dot} per compiled graph
//	XLAJIT_COMPILATION_CACHE_SIZE=N compile cache capacity (default 2048)
//	XLAJIT_PERSISTENT_CACHE_PATH=dir on-disk compile cache
type settings struct {
	debug    int
	saveFile string
	saveFmt  string
	dumpDir  string
}

var (
	settingsOnce sync.Once
	cfg          settings
	eagerMode    atomic.Bool
	// dumping is set when an execution writes a dump or a debug line.
	dumping bool
)

func loadSettings() {
	settingsOnce.Do(func() {
		if s := os.Getenv("XLAJIT_DEBUG"); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n < 0 || n > 5 {
				log.Printf("xlajit: ignoring XLAJIT_DEBUG=%q (want 0..5)", s)
			} else {
				cfg.debug = n
			}
		}
		cfg.saveFile = os.Getenv("XLAJIT_SAVE_TENSORS_FILE")
		cfg.saveFmt = strings.ToLower(os.Getenv("XLAJIT_SAVE_TENSORS_FMT"))
		switch cfg.saveFmt {
		case "", "text", "hlo", "dot":
		default:
			log.Printf("xlajit: ignoring XLAJIT_SAVE_TENSORS_FMT=%q (want text, hlo or dot)", cfg.saveFmt)
			cfg.saveFmt = ""
		}
		cfg.dumpDir = os.Getenv("XLAJIT_DUMP_DIR")
		if cfg.debug >= 1 {
			captureSites.Add(1)
		}
		dumping = cfg.saveFile != "" || cfg.dumpDir != "" || cfg.debug >= 3
		if v := os.Getenv("XLAJIT_EAGER"); v == "1" || strings.EqualFold(v, "true") {
			eagerMode.Store(true)
		}
	})
}

func init() { loadSettings() }

func debugLevel() int { return cfg.debug }

// SetEager turns eager mode on or off: in eager mode every op is followed
// by a cut, so each op runs as its own compiled graph.
func SetEager(on bool) { eagerMode.Store(on) }

// Eager reports whether eager mode is on.
func Eager() bool { return eagerMode.Load() }

func eager() bool { return eagerMode.Load() }

var saveMu sync.Mutex

// saveGraph writes the graph's dumps as the settings ask.
func saveGraph(g *Graph, x *Executable) {
	if g == nil {
		return
	}
	if cfg.debug >= 3 {
		log.Printf("xlajit: execute graph %s (%d nodes, %d params)", g.Hash, len(g.Nodes), len(g.Params))
	}
	if cfg.debug >= 4 {
		log.Printf("xlajit: graph %s IR:\n%s", g.Hash, g.String())
	}
	if cfg.debug >= 5 && x.Module != nil {
		log.Printf("xlajit: graph %s StableHLO:\n%s", g.Hash, x.Module.String())
	}
	if cfg.saveFile != "" {
		var b strings.Builder
		fmt.Fprintf(&b, "[ExecuteGraph]\nGraph Hash: %s\n", g.Hash)
		switch cfg.saveFmt {
		case "dot":
			b.WriteString(g.Dot())
		case "hlo":
			if x.Module != nil {
				b.WriteString(x.Module.String())
			}
		default:
			b.WriteString("## IR\n")
			b.WriteString(g.String())
			if x.Module != nil {
				b.WriteString("## StableHLO\n")
				b.WriteString(x.Module.String())
			}
		}
		b.WriteString("\n")
		saveMu.Lock()
		f, err := os.OpenFile(cfg.saveFile, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			_, err = f.WriteString(b.String())
			f.Close()
		}
		saveMu.Unlock()
		if err != nil {
			log.Printf("xlajit: XLAJIT_SAVE_TENSORS_FILE: %v", err)
		}
	}
	if cfg.dumpDir != "" {
		if err := os.MkdirAll(cfg.dumpDir, 0o755); err == nil {
			base := filepath.Join(cfg.dumpDir, g.Hash.String())
			os.WriteFile(base+".ir", []byte(g.String()), 0o644)
			os.WriteFile(base+".dot", []byte(g.Dot()), 0o644)
			if x.Module != nil {
				os.WriteFile(base+".mlir", []byte(x.Module.String()), 0o644)
			}
		}
	}
}

// DebugLevel is the XLAJIT_DEBUG level (0..5).
func DebugLevel() int { return cfg.debug }

package host

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/xlajit/xlajit/pjrt/host/kernel"
)

// The memory limit of the embedded device: the bytes of tensors a client
// (all its virtual devices together) may hold at once, checked before
// anything is allocated (see account.go). XLAJIT_HOST_MEMORY_LIMIT sets it;
// by default it is half of the machine's memory (the smaller of physical
// memory and a cgroup limit), leaving room for the Go heap's garbage and
// kernel scratch.

// MemoryLimitEnv is the environment variable that sets the limit.
const MemoryLimitEnv = "XLAJIT_HOST_MEMORY_LIMIT"

// fallbackMemory is the machine memory assumed when none can be read.
const fallbackMemory = 8 << 30

// memoryLimitSetting says where the limit comes from, for out-of-memory
// errors.
func memoryLimitSetting() string {
	if s := strings.TrimSpace(os.Getenv(MemoryLimitEnv)); s != "" {
		return MemoryLimitEnv + "=" + s
	}
	return "half of the machine's memory; " + MemoryLimitEnv + " sets it"
}

// MemoryLimit returns the limit XLAJIT_HOST_MEMORY_LIMIT asks for, or the
// default when it is unset.
func MemoryLimit() (int64, error) {
	total := machineMemory()
	s := os.Getenv(MemoryLimitEnv)
	if strings.TrimSpace(s) == "" {
		return total / 2, nil
	}
	n, err := ParseMemorySize(s, total)
	if err != nil {
		return 0, fmt.Errorf("host: %s=%q: %v", MemoryLimitEnv, s, err)
	}
	return n, nil
}

// ParseMemorySize reads a byte count: a number with an optional unit (B;
// KB, MB, GB, TB are powers of 1000; K, M, G, T, KiB, MiB, GiB, TiB powers
// of 1024; case does not matter), or a percentage of total. The result
// must be positive.
func ParseMemorySize(s string, total int64) (int64, error) {
	t := strings.TrimSpace(s)
	if strings.HasSuffix(t, "%") {
		p, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(t, "%")), 64)
		if err != nil || !(p > 0) || p > 100 {
			return 0, fmt.Errorf("want a percentage in (0, 100] of the machine's %d bytes", total)
		}
		return max(int64(float64(total)*p/100), 1), nil
	}
	i := len(t)
	for i > 0 && (t[i-1] < '0' || t[i-1] > '9') && t[i-1] != '.' {
		i--
	}
	num, unit := strings.TrimSpace(t[:i]), strings.ToLower(strings.TrimSpace(t[i:]))
	mult := map[string]float64{
		"": 1, "b": 1,
		"kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
		"k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40,
		"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
	}[unit]
	v, err := strconv.ParseFloat(num, 64)
	if mult == 0 || err != nil || num == "" {
		return 0, fmt.Errorf("want a size such as 8GiB, 512MB, 1.5G or 50%%")
	}
	b := v * mult
	if !(b >= 1) || b >= math.MaxInt64 {
		return 0, fmt.Errorf("want a positive size below 8 EiB")
	}
	return int64(b), nil
}

// machineMemory is the memory this process may use: physical memory
// (/proc/meminfo) or a smaller cgroup limit, fallbackMemory if neither is
// readable.
func machineMemory() int64 {
	total := int64(0)
	if f, err := os.Open("/proc/meminfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
				fs := strings.Fields(rest)
				if len(fs) >= 1 {
					if kb, err := strconv.ParseInt(fs[0], 10, 64); err == nil && kb > 0 && kb < math.MaxInt64/1024 {
						total = kb * 1024
					}
				}
			}
		}
		f.Close()
	}
	for _, p := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err == nil && v > 0 && v < 1<<60 && (total == 0 || v < total) {
			total = v
		}
	}
	if total <= 0 {
		total = fallbackMemory
	}
	return total
}

var (
	defaultMemOnce sync.Once
	defaultMemAcct *kernel.Mem
	defaultMemErr  error
)

// defaultMem is the memory account of programs compiled by Compile and run
// without a client: one for the process, with the default limit.
func defaultMem() (*kernel.Mem, error) {
	defaultMemOnce.Do(func() {
		var limit int64
		limit, defaultMemErr = MemoryLimit()
		if defaultMemErr == nil {
			defaultMemAcct = kernel.NewMem(limit, 0, memoryLimitSetting())
		}
	})
	return defaultMemAcct, defaultMemErr
}

package host

import (
	"strings"
	"testing"

	"github.com/xlajit/xlajit/pjrt"
)

func TestParseMemorySize(t *testing.T) {
	const total = 16 << 30
	for _, c := range []struct {
		in   string
		want int64
	}{
		{"8GiB", 8 << 30}, {"8gib", 8 << 30}, {"512MB", 512e6}, {"1.5G", 3 << 29}, {"100", 100},
		{"100 B", 100}, {"2K", 2048}, {"3kb", 3000}, {"1TiB", 1 << 40}, {"25%", total / 4}, {" 50 % ", total / 2},
	} {
		got, err := ParseMemorySize(c.in, total)
		if err != nil || got != c.want {
			t.Errorf("ParseMemorySize(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{"", "0", "-1G", "abc", "5XB", "0%", "150%", "1e30", "G"} {
		if got, err := ParseMemorySize(in, total); err == nil {
			t.Errorf("ParseMemorySize(%q) = %d, want an error", in, got)
		}
	}
}

func TestMemoryLimitEnv(t *testing.T) {
	t.Setenv(MemoryLimitEnv, "")
	if n, err := MemoryLimit(); err != nil || n != machineMemory()/2 || n <= 0 {
		t.Errorf("default limit %d, %v; want half of %d", n, err, machineMemory())
	}
	t.Setenv(MemoryLimitEnv, "3GiB")
	if n, err := MemoryLimit(); err != nil || n != 3<<30 {
		t.Errorf("limit %d, %v; want 3 GiB", n, err)
	}
	if c := NewClient(2); c.devMem[0].Limit() != 3<<30 {
		t.Errorf("NewClient's limit %d, want 3 GiB", c.devMem[0].Limit())
	}
	t.Setenv(MemoryLimitEnv, "lots")
	if _, err := MemoryLimit(); err == nil || !strings.Contains(err.Error(), `XLAJIT_HOST_MEMORY_LIMIT="lots"`) {
		t.Errorf("invalid value: %v", err)
	}
	if _, err := pjrt.Open("CPU"); err == nil || !strings.Contains(err.Error(), MemoryLimitEnv) {
		t.Errorf("pjrt.Open with an invalid limit: %v", err)
	}
}

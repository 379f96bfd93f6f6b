package plugin

import (
	"strings"
	"testing"
)

func TestCheckAPI(t *testing.T) {
	full := uint64(headerAPIStructSize)
	good := APIInfo{StructSize: full, VersionStructSize: apiVersionStructSize, Major: 0, Minor: HeaderAPIMinor}
	cases := []struct {
		name string
		info APIInfo
		want string // "" = accepted
	}{
		{"header version", good, ""},
		{"newer plugin", APIInfo{StructSize: full + 64, VersionStructSize: apiVersionStructSize, Minor: HeaderAPIMinor + 20}, ""},
		{"older but complete enough", APIInfo{StructSize: RequiredAPIStructSize, VersionStructSize: apiVersionStructSize, Minor: MinAPIMinor}, ""},
		{"too old", APIInfo{StructSize: full, VersionStructSize: apiVersionStructSize, Minor: MinAPIMinor - 1}, "too old"},
		{"major 1", APIInfo{StructSize: full, VersionStructSize: apiVersionStructSize, Major: 1}, "major version 1"},
		{"short table", APIInfo{StructSize: RequiredAPIStructSize - ptrSize, VersionStructSize: apiVersionStructSize, Minor: HeaderAPIMinor}, "function table"},
		{"tiny table", APIInfo{StructSize: 8}, "too small to hold the API version"},
		{"corrupt version", APIInfo{StructSize: full, VersionStructSize: 4, Minor: HeaderAPIMinor}, "corrupt"},
	}
	for _, c := range cases {
		err := checkAPI("/x/p.so", c.info)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: checkAPI(%v) = %v, want nil", c.name, c.info, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "/x/p.so")):
			t.Errorf("%s: checkAPI(%v) = %v, want an error naming the path and containing %q", c.name, c.info, err, c.want)
		}
	}
	if !good.hasSlot(slotDeviceMemoryStats) || (APIInfo{StructSize: apiFirstSlot + 8*ptrSize}).hasSlot(slotDeviceMemoryStats) {
		t.Errorf("hasSlot disagrees with the table size")
	}
}

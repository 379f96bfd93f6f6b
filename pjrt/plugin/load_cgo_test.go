//go:build cgo

package plugin

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	xpjrt "github.com/gomlx/go-xla/pjrt"

	"github.com/xlajit/xlajit/pjrt"
)

// Every broken file is refused with an error naming it and the cause; none
// reaches go-xla, none panics.
func TestLoadBroken(t *testing.T) {
	f := fakes(t)
	cases := []struct{ name, path, want string }{
		{"not ELF", f.notELF, "not an ELF file"},
		{"empty", f.empty, "empty file"},
		{"truncated", f.truncHalf, "truncated"},
		{"truncated segments", f.truncSegments, "truncated"},
		{"wrong architecture", f.wrongArch, "wrong architecture"},
		{"missing GetPjrtApi", f.noSymbol, "does not export GetPjrtApi"},
		{"missing dependency", f.missingDep, "dlopen failed"},
		{"API too old", f.old, "0.40 is too old"},
		{"API major 1", f.major1, "major version 1"},
		{"API table too short", f.shortTable, "function table"},
		{"API table tiny", f.tiny, "too small to hold the API version"},
		{"GetPjrtApi returns NULL", f.nullAPI, "returned NULL"},
		{"PJRT_Plugin_Initialize NULL", f.noInit, "does not implement PJRT_Plugin_Initialize"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			info, err := Load(c.path)
			if err == nil {
				t.Fatalf("Load(%s) = %+v, want an error", c.path, info)
			}
			var le *LoadError
			if !errors.As(err, &le) || le.Path != c.path || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Load(%s) = %v; want a *LoadError naming the file and containing %q", c.path, err, c.want)
			}
			// The registry path gives the same error.
			if _, err2 := pjrt.Open(c.path); err2 == nil || err2.Error() != err.Error() {
				t.Errorf("pjrt.Open(%s) = %v, want %v", c.path, err2, err)
			}
		})
	}
	if _, err := Load(filepath.Join(f.dir, "absent.so")); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("Load(absent) = %v", err)
	}
}

// A plugin that passes every check is initialised by go-xla (attributes
// read through the real C API path); its failing PJRT_Client_Create is an
// error naming the file.
func TestLoadFake(t *testing.T) {
	f := fakes(t)
	info, err := Load(f.good)
	if err != nil {
		t.Fatalf("Load(fake) = %v", err)
	}
	if info.API.Major != 0 || info.API.Minor != HeaderAPIMinor || info.API.StructSize != headerAPIStructSize {
		t.Errorf("API = %+v", info.API)
	}
	if info.Attributes["xla_version"] != "fake-1.0" {
		t.Errorf("attributes = %v, want xla_version=fake-1.0", info.Attributes)
	}
	_, err = OpenClient(f.good)
	if err == nil || !strings.Contains(err.Error(), f.good) || !strings.Contains(err.Error(), "PJRT_Client_Create is not implemented") {
		t.Errorf("OpenClient(fake) = %v, want the plugin's Client_Create error naming the file", err)
	}
	// A plugin without the client functions loads but cannot make a client.
	if _, err := Load(f.noClient); err != nil {
		t.Errorf("Load(no_client) = %v", err)
	}
	if _, err := OpenClient(f.noClient); err == nil || !strings.Contains(err.Error(), "does not implement PJRT_Client_Destroy, needed to create a client") {
		t.Errorf("OpenClient(no_client) = %v", err)
	}
	// Loading twice reuses the library.
	if info2, err := Load(f.good); err != nil || info2.API != info.API {
		t.Errorf("second Load = %+v, %v", info2, err)
	}
}

// go-xla's own directory search panics on a broken candidate; ours lists it
// with its error and still finds the good plugin next to it.
func TestBrokenCandidateInSearchPath(t *testing.T) {
	f := fakes(t)
	isolate(t)
	dir := t.TempDir()
	link := func(src, name string) string {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	broken := link(f.notELF, "pjrt_c_api_broken_plugin.so")
	nosym := link(f.noSymbol, "pjrt_c_api_nosym_plugin.so")
	good := link(f.good, "pjrt_c_api_fakecopy_plugin.so")
	t.Setenv("PJRT_PLUGIN_LIBRARY_PATH", dir)

	got := map[string]Installation{}
	for _, in := range Installed() {
		got[in.Path] = in
	}
	if len(got) != 3 {
		t.Fatalf("Installed() found %d plugins, want 3: %v", len(got), got)
	}
	for _, p := range []string{broken, nosym} {
		if got[p].Err == nil || !strings.Contains(got[p].Err.Error(), p) {
			t.Errorf("%s: err = %v, want an error naming it", p, got[p].Err)
		}
	}
	if in := got[good]; in.Err == nil || !strings.Contains(in.Err.Error(), "PJRT_Client_Create is not implemented") {
		t.Errorf("good fake: %v", in.Err)
	}
	if _, err := Load("fakecopy"); err != nil {
		t.Errorf("Load(fakecopy) by name = %v", err)
	}
	if _, err := Load("broken"); err == nil || !strings.Contains(err.Error(), broken) {
		t.Errorf("Load(broken) by name = %v", err)
	}
}

// goxlaHeader locates pjrt_c_api.h in go-xla's module source, or skips.
func goxlaHeader(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/gomlx/go-xla").Output()
	dir := strings.TrimSpace(string(out))
	if err != nil || dir == "" {
		t.Skipf("cannot locate go-xla's source (go list: %v)", err)
	}
	header := filepath.Join(dir, "pjrt", "pjrt_c_api.h")
	if _, err := os.Stat(header); err != nil {
		t.Skipf("go-xla's header is not available: %v", err)
	}
	return header
}

// TestABILayout compares our hand-written PJRT struct layouts and slot
// numbers with the header go-xla was built with.
func TestABILayout(t *testing.T) {
	cc := gcc(t)
	header := goxlaHeader(t)
	src := `#include <stdio.h>
#include <stddef.h>
#include "pjrt_c_api.h"
#define OFF(s, f) printf(#s "." #f " %zu\n", offsetof(s, f))
#define SLOT(f) printf("slot." #f " %zu\n", (offsetof(PJRT_Api, f) - offsetof(PJRT_Api, PJRT_Error_Destroy)) / sizeof(void*))
#define SIZE(s) printf(#s "_STRUCT_SIZE %zu\n", (size_t)s##_STRUCT_SIZE)
int main(void) {
  printf("PJRT_API_MAJOR %d\nPJRT_API_MINOR %d\n", PJRT_API_MAJOR, PJRT_API_MINOR);
  printf("PJRT_Api_STRUCT_SIZE %zu\n", (size_t)PJRT_Api_STRUCT_SIZE);
  OFF(PJRT_Api, pjrt_api_version); OFF(PJRT_Api, PJRT_Error_Destroy);
  SIZE(PJRT_Api_Version); SIZE(PJRT_Error_Message_Args); SIZE(PJRT_Error_Destroy_Args);
  SIZE(PJRT_Device_GetDescription_Args); SIZE(PJRT_DeviceDescription_Id_Args);
  SIZE(PJRT_DeviceDescription_Kind_Args); SIZE(PJRT_Device_MemoryStats_Args);
  OFF(PJRT_Device_MemoryStats_Args, bytes_limit); OFF(PJRT_Device_MemoryStats_Args, peak_bytes_in_use);
  SLOT(PJRT_Error_Destroy); SLOT(PJRT_Error_Message); SLOT(PJRT_Error_GetCode);
  SLOT(PJRT_Plugin_Initialize); SLOT(PJRT_Plugin_Attributes); SLOT(PJRT_Client_Create);
  SLOT(PJRT_DeviceDescription_Id); SLOT(PJRT_DeviceDescription_Kind); SLOT(PJRT_Device_GetDescription);
  SLOT(PJRT_Device_MemoryStats); SLOT(PJRT_Executable_GetCompiledMemoryStats);
  %s
  return 0;
}
`
	var more strings.Builder
	for _, f := range allAPIFuncs() {
		fmt.Fprintf(&more, "SLOT(%s); ", f.name)
	}
	src = strings.Replace(src, "%s", more.String(), 1)
	tmp := t.TempDir()
	if err := os.WriteFile(filepath.Join(tmp, "layout.c"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(tmp, "layout")
	if b, err := exec.Command(cc, "-I", filepath.Dir(header), "-o", bin, filepath.Join(tmp, "layout.c")).CombinedOutput(); err != nil {
		t.Fatalf("compiling the layout probe: %v\n%s", err, b)
	}
	res, err := exec.Command(bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	hdr := map[string]int{}
	sc := bufio.NewScanner(strings.NewReader(string(res)))
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), " ")
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("bad probe line %q", sc.Text())
		}
		hdr[k] = n
	}
	want := map[string]int{
		"PJRT_API_MAJOR": HeaderAPIMajor, "PJRT_API_MINOR": HeaderAPIMinor, "PJRT_Api_STRUCT_SIZE": headerAPIStructSize,
		"PJRT_Api.PJRT_Error_Destroy":                 apiFirstSlot,
		"PJRT_Api.pjrt_api_version":                   apiVersionOffset,
		"PJRT_Api_Version_STRUCT_SIZE":                apiVersionStructSize,
		"slot.PJRT_Error_Destroy":                     slotErrorDestroy,
		"slot.PJRT_Error_Message":                     slotErrorMessage,
		"slot.PJRT_Error_GetCode":                     slotErrorGetCode,
		"slot.PJRT_Plugin_Initialize":                 slotPluginInitialize,
		"slot.PJRT_Plugin_Attributes":                 slotPluginAttributes,
		"slot.PJRT_Client_Create":                     slotClientCreate,
		"slot.PJRT_DeviceDescription_Id":              slotDeviceDescriptionID,
		"slot.PJRT_DeviceDescription_Kind":            slotDeviceDescriptionKind,
		"slot.PJRT_Device_GetDescription":             slotDeviceGetDescription,
		"slot.PJRT_Device_MemoryStats":                slotDeviceMemoryStats,
		"slot.PJRT_Executable_GetCompiledMemoryStats": slotExecutableGetCompiledMemStats,
	}
	for _, f := range allAPIFuncs() {
		want["slot."+f.name] = f.slot
	}
	for k, v := range abiLayout() {
		want[k] = v
	}
	for k, v := range want {
		if h, ok := hdr[k]; !ok || h != v {
			t.Errorf("%s: ours %d, go-xla's header %d (present %v)", k, v, h, ok)
		}
	}
}

// devicePointer reads an unexported go-xla field; make sure it is there.
func TestDevicePointerField(t *testing.T) {
	f, ok := reflect.TypeOf(xpjrt.Device{}).FieldByName("cDevice")
	if !ok || f.Type.Kind() != reflect.Pointer {
		t.Fatalf("go-xla's pjrt.Device has no pointer field cDevice (device kind, id and memory statistics need it)")
	}
	if devicePointer(nil) != nil || devicePointer(&xpjrt.Device{}) != nil {
		t.Errorf("devicePointer of an empty device should be nil")
	}
}

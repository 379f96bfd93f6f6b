//go:build cgo

package plugin

// Our own view of the few parts of the PJRT C API that go-xla does not
// expose: the API table's header (to check versions before go-xla touches
// the table) and device kind, id and memory statistics. The layouts follow
// pjrt_c_api.h; TestABILayout compares them with go-xla's copy of it.

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// Slot numbers: the same as the slot* constants of apicheck.go (checked at
// compile time below).
#define SLOT_ERROR_DESTROY 0
#define SLOT_ERROR_MESSAGE 1
#define SLOT_DESCRIPTION_ID 23
#define SLOT_DESCRIPTION_KIND 26
#define SLOT_DEVICE_GET_DESCRIPTION 29
#define SLOT_DEVICE_MEMORY_STATS 34

#define XJ_STRUCT_SIZE(type, last) (offsetof(type, last) + sizeof(((type*)0)->last))

typedef struct {
	size_t struct_size;
	void* extension_start;
	int major_version;
	int minor_version;
} xj_api_version;

typedef struct {
	size_t struct_size;
	void* extension_start;
	xj_api_version version;
	void* slots[];
} xj_api;

typedef struct { size_t struct_size; void* extension_start; void* error; } xj_error_destroy_args;
typedef struct { size_t struct_size; void* extension_start; const void* error; const char* message; size_t message_size; } xj_error_message_args;
typedef struct { size_t struct_size; void* extension_start; void* device; void* device_description; } xj_get_description_args;
typedef struct { size_t struct_size; void* extension_start; void* device_description; int id; } xj_description_id_args;
typedef struct { size_t struct_size; void* extension_start; void* device_description; const char* device_kind; size_t device_kind_size; } xj_description_kind_args;
typedef struct {
	size_t struct_size;
	void* extension_start;
	void* device;
	int64_t bytes_in_use;
	int64_t peak_bytes_in_use;
	bool peak_bytes_in_use_is_set;
	int64_t num_allocs;
	bool num_allocs_is_set;
	int64_t largest_alloc_size;
	bool largest_alloc_size_is_set;
	int64_t bytes_limit;
	bool bytes_limit_is_set;
	int64_t bytes_reserved;
	bool bytes_reserved_is_set;
	int64_t peak_bytes_reserved;
	bool peak_bytes_reserved_is_set;
	int64_t bytes_reservable_limit;
	bool bytes_reservable_limit_is_set;
	int64_t largest_free_block_bytes;
	bool largest_free_block_bytes_is_set;
	int64_t pool_bytes;
	bool pool_bytes_is_set;
	int64_t peak_pool_bytes;
	bool peak_pool_bytes_is_set;
} xj_memory_stats_args;

typedef void* (*xj_call)(void* args);
typedef const xj_api* (*xj_get_api)(void);

static void* xj_open(const char* path, char** err) {
	dlerror();
	void* h = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
	if (h == NULL) {
		const char* e = dlerror();
		*err = strdup(e ? e : "dlopen failed");
	}
	return h;
}

static void* xj_sym(void* h, const char* name, char** err) {
	dlerror();
	void* p = dlsym(h, name);
	const char* e = dlerror();
	if (e != NULL || p == NULL) {
		*err = strdup(e ? e : "symbol is NULL");
		return NULL;
	}
	return p;
}

static void xj_close(void* h) { dlclose(h); }

static int xj_has(const xj_api* a, int slot) { return a->slots[slot] != NULL; }

static const xj_api* xj_get(void* fn) { return ((xj_get_api)fn)(); }

static size_t xj_struct_size(const xj_api* a) { return a->struct_size; }

static void xj_version(const xj_api* a, size_t* vsize, int* major, int* minor) {
	*vsize = a->version.struct_size;
	*major = a->version.major_version;
	*minor = a->version.minor_version;
}

// xj_error turns a PJRT_Error into a malloc'ed message and frees the error.
static char* xj_error(const xj_api* a, void* err) {
	if (err == NULL) return NULL;
	xj_error_message_args m = {0};
	m.struct_size = XJ_STRUCT_SIZE(xj_error_message_args, message_size);
	m.error = err;
	((xj_call)a->slots[SLOT_ERROR_MESSAGE])(&m);
	char* out = malloc(m.message_size + 1);
	memcpy(out, m.message, m.message_size);
	out[m.message_size] = 0;
	xj_error_destroy_args d = {0};
	d.struct_size = XJ_STRUCT_SIZE(xj_error_destroy_args, error);
	d.error = err;
	((xj_call)a->slots[SLOT_ERROR_DESTROY])(&d);
	return out;
}

static char* xj_description(const xj_api* a, void* device, void** desc) {
	xj_get_description_args g = {0};
	g.struct_size = XJ_STRUCT_SIZE(xj_get_description_args, device_description);
	g.device = device;
	char* e = xj_error(a, ((xj_call)a->slots[SLOT_DEVICE_GET_DESCRIPTION])(&g));
	*desc = g.device_description;
	return e;
}

static char* xj_device_kind(const xj_api* a, void* device, const char** kind, size_t* size) {
	void* desc;
	char* e = xj_description(a, device, &desc);
	if (e != NULL) return e;
	xj_description_kind_args k = {0};
	k.struct_size = XJ_STRUCT_SIZE(xj_description_kind_args, device_kind_size);
	k.device_description = desc;
	e = xj_error(a, ((xj_call)a->slots[SLOT_DESCRIPTION_KIND])(&k));
	*kind = k.device_kind;
	*size = k.device_kind_size;
	return e;
}

static char* xj_device_id(const xj_api* a, void* device, int* id) {
	void* desc;
	char* e = xj_description(a, device, &desc);
	if (e != NULL) return e;
	xj_description_id_args k = {0};
	k.struct_size = XJ_STRUCT_SIZE(xj_description_id_args, id);
	k.device_description = desc;
	e = xj_error(a, ((xj_call)a->slots[SLOT_DESCRIPTION_ID])(&k));
	*id = k.id;
	return e;
}

static char* xj_memory_stats(const xj_api* a, void* device, xj_memory_stats_args* s) {
	memset(s, 0, sizeof(*s));
	s->struct_size = XJ_STRUCT_SIZE(xj_memory_stats_args, peak_pool_bytes_is_set);
	s->device = device;
	return xj_error(a, ((xj_call)a->slots[SLOT_DEVICE_MEMORY_STATS])(s));
}

static size_t xj_layout(int which) {
	switch (which) {
	case 0: return offsetof(xj_api, version);
	case 1: return offsetof(xj_api, slots);
	case 2: return XJ_STRUCT_SIZE(xj_api_version, minor_version);
	case 3: return XJ_STRUCT_SIZE(xj_error_message_args, message_size);
	case 4: return XJ_STRUCT_SIZE(xj_error_destroy_args, error);
	case 5: return XJ_STRUCT_SIZE(xj_get_description_args, device_description);
	case 6: return XJ_STRUCT_SIZE(xj_description_id_args, id);
	case 7: return XJ_STRUCT_SIZE(xj_description_kind_args, device_kind_size);
	case 8: return XJ_STRUCT_SIZE(xj_memory_stats_args, peak_pool_bytes_is_set);
	case 9: return offsetof(xj_memory_stats_args, bytes_limit);
	case 10: return offsetof(xj_memory_stats_args, peak_bytes_in_use);
	}
	return 0;
}
*/
import "C"

import (
	"errors"
	"unsafe"
)

// Compile-time equality of the C and Go slot numbers.
const (
	_ uint = C.SLOT_ERROR_DESTROY - slotErrorDestroy
	_ uint = slotErrorDestroy - C.SLOT_ERROR_DESTROY
	_ uint = C.SLOT_ERROR_MESSAGE - slotErrorMessage
	_ uint = slotErrorMessage - C.SLOT_ERROR_MESSAGE
	_ uint = C.SLOT_DESCRIPTION_ID - slotDeviceDescriptionID
	_ uint = slotDeviceDescriptionID - C.SLOT_DESCRIPTION_ID
	_ uint = C.SLOT_DESCRIPTION_KIND - slotDeviceDescriptionKind
	_ uint = slotDeviceDescriptionKind - C.SLOT_DESCRIPTION_KIND
	_ uint = C.SLOT_DEVICE_GET_DESCRIPTION - slotDeviceGetDescription
	_ uint = slotDeviceGetDescription - C.SLOT_DEVICE_GET_DESCRIPTION
	_ uint = C.SLOT_DEVICE_MEMORY_STATS - slotDeviceMemoryStats
	_ uint = slotDeviceMemoryStats - C.SLOT_DEVICE_MEMORY_STATS
)

func cErr(e *C.char) error {
	if e == nil {
		return nil
	}
	defer C.free(unsafe.Pointer(e))
	return errors.New(C.GoString(e))
}

// library is a dlopen'ed plugin whose API table passed checkAPI. It is never
// closed: go-xla keeps using the same table.
type library struct {
	path   string
	handle unsafe.Pointer
	api    *C.xj_api
	info   APIInfo
}

// openLibrary dlopens path (which passed checkELF), calls GetPjrtApi and
// checks the table.
func openLibrary(path string) (*library, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var cerr *C.char
	h := C.xj_open(cpath, &cerr)
	if h == nil {
		return nil, loadErr(path, "dlopen failed: %v", cErr(cerr))
	}
	csym := C.CString(apiSymbol)
	defer C.free(unsafe.Pointer(csym))
	fn := C.xj_sym(h, csym, &cerr)
	if fn == nil {
		C.xj_close(h)
		return nil, loadErr(path, "dlsym(%s) failed: %v", apiSymbol, cErr(cerr))
	}
	api := C.xj_get(fn)
	if api == nil {
		C.xj_close(h)
		return nil, loadErr(path, "%s returned NULL", apiSymbol)
	}
	info := APIInfo{StructSize: uint64(C.xj_struct_size(api))}
	if info.StructSize >= apiFirstSlot {
		var vs C.size_t
		var major, minor C.int
		C.xj_version(api, &vs, &major, &minor)
		info.VersionStructSize, info.Major, info.Minor = uint64(vs), int(major), int(minor)
	}
	if err := checkAPI(path, info); err != nil {
		C.xj_close(h)
		return nil, err
	}
	l := &library{path: path, handle: h, api: api, info: info}
	if err := l.require("initialise it", needLoad); err != nil {
		C.xj_close(h)
		return nil, err
	}
	return l, nil
}

// require checks that the plugin implements every function fns (go-xla
// would otherwise call a NULL pointer).
func (l *library) require(what string, fns []apiFunc) error {
	for _, f := range fns {
		if !l.info.hasSlot(f.slot) || C.xj_has(l.api, C.int(f.slot)) == 0 {
			return loadErr(l.path, "the plugin does not implement %s, needed to %s", f.name, what)
		}
	}
	return nil
}

func (l *library) deviceKind(dev unsafe.Pointer) (string, error) {
	if dev == nil || !l.info.hasSlot(slotDeviceGetDescription) || !l.info.hasSlot(slotDeviceDescriptionKind) {
		return "", errors.New("device kind unavailable")
	}
	var s *C.char
	var n C.size_t
	if err := cErr(C.xj_device_kind(l.api, dev, &s, &n)); err != nil {
		return "", err
	}
	return C.GoStringN(s, C.int(n)), nil
}

func (l *library) deviceID(dev unsafe.Pointer) (int, error) {
	if dev == nil || !l.info.hasSlot(slotDeviceDescriptionID) {
		return 0, errors.New("device id unavailable")
	}
	var id C.int
	if err := cErr(C.xj_device_id(l.api, dev, &id)); err != nil {
		return 0, err
	}
	return int(id), nil
}

// memStats are the allocator statistics of one device.
type memStats struct {
	inUse, peak, limit int64
	peakSet, limitSet  bool
}

func (l *library) memoryStats(dev unsafe.Pointer) (memStats, error) {
	if dev == nil || !l.info.hasSlot(slotDeviceMemoryStats) {
		return memStats{}, errors.New("memory statistics unavailable")
	}
	var s C.xj_memory_stats_args
	if err := cErr(C.xj_memory_stats(l.api, dev, &s)); err != nil {
		return memStats{}, err
	}
	return memStats{
		inUse: int64(s.bytes_in_use), peak: int64(s.peak_bytes_in_use), limit: int64(s.bytes_limit),
		peakSet: bool(s.peak_bytes_in_use_is_set), limitSet: bool(s.bytes_limit_is_set),
	}, nil
}

// abiLayout reports our struct layouts for TestABILayout.
func abiLayout() map[string]int {
	names := []string{
		"PJRT_Api.pjrt_api_version", "PJRT_Api.PJRT_Error_Destroy", "PJRT_Api_Version_STRUCT_SIZE",
		"PJRT_Error_Message_Args_STRUCT_SIZE", "PJRT_Error_Destroy_Args_STRUCT_SIZE",
		"PJRT_Device_GetDescription_Args_STRUCT_SIZE", "PJRT_DeviceDescription_Id_Args_STRUCT_SIZE",
		"PJRT_DeviceDescription_Kind_Args_STRUCT_SIZE", "PJRT_Device_MemoryStats_Args_STRUCT_SIZE",
		"PJRT_Device_MemoryStats_Args.bytes_limit", "PJRT_Device_MemoryStats_Args.peak_bytes_in_use",
	}
	m := map[string]int{}
	for i, n := range names {
		m[n] = int(C.xj_layout(C.int(i)))
	}
	return m
}

package plugin

import (
	"fmt"
	"strconv"
)

// The PJRT C API header go-xla v0.3.0 was built with (pjrt/pjrt_c_api.h);
// TestABILayout checks these numbers against that header.
const (
	HeaderAPIMajor = 0
	HeaderAPIMinor = 104
)

// MinAPIMinor is the oldest plugin minor version accepted. 0.45 changed the
// layout of PJRT_Extension_Base (a breaking change the header's ABI rules
// allowed before 1.0), and go-xla reads the PJRT_Executable_GetCompiledMemoryStats
// fields completed in 0.43; anything older is ABI-incompatible with the
// wrapper's header.
const MinAPIMinor = 45

// Layout of PJRT_Api: struct_size, extension_start, then PJRT_Api_Version
// {struct_size, extension_start, int major, int minor}, then one function
// pointer per slot (40 bytes before the first slot on 64-bit machines).
const (
	ptrSize              = strconv.IntSize / 8 // pointer size: Go ints are pointer-sized
	apiVersionOffset     = 2 * ptrSize
	apiVersionStructSize = 2*ptrSize + 8 // PJRT_Api_Version_STRUCT_SIZE
	apiFirstSlot         = apiVersionOffset + apiVersionStructSize
)

// Slot numbers (index of the function pointer after the version) of the
// functions this package calls itself or that bound the ones go-xla calls.
const (
	slotErrorDestroy                  = 0
	slotErrorMessage                  = 1
	slotErrorGetCode                  = 2
	slotPluginInitialize              = 3
	slotPluginAttributes              = 4
	slotClientCreate                  = 10
	slotDeviceDescriptionID           = 23
	slotDeviceDescriptionKind         = 26
	slotDeviceGetDescription          = 29
	slotDeviceMemoryStats             = 34
	slotExecutableGetCompiledMemStats = 96 // the highest slot go-xla calls on every compile
	headerSlots                       = 135
	requiredSlot                      = slotExecutableGetCompiledMemStats
	RequiredAPIStructSize             = apiFirstSlot + (requiredSlot+1)*ptrSize
	headerAPIStructSize               = apiFirstSlot + headerSlots*ptrSize
)

// APIInfo is what a plugin's GetPjrtApi table says about itself.
type APIInfo struct {
	StructSize        uint64 // PJRT_Api.struct_size: bytes of the table the plugin fills
	VersionStructSize uint64 // PJRT_Api.pjrt_api_version.struct_size
	Major, Minor      int
}

func (a APIInfo) String() string {
	return fmt.Sprintf("PJRT C API %d.%d (table %d bytes)", a.Major, a.Minor, a.StructSize)
}

// hasSlot reports whether the plugin's function table reaches slot.
func (a APIInfo) hasSlot(slot int) bool {
	return a.StructSize >= uint64(apiFirstSlot+(slot+1)*ptrSize)
}

// checkAPI refuses tables go-xla cannot call safely: calling a slot past the
// end of an older plugin's table is undefined behaviour, and a different
// major version means a different ABI.
func checkAPI(path string, a APIInfo) error {
	if a.StructSize < apiFirstSlot {
		return loadErr(path, "PJRT_Api struct_size %d is too small to hold the API version (needs %d): not a PJRT plugin or a corrupt one", a.StructSize, apiFirstSlot)
	}
	if a.VersionStructSize < apiVersionStructSize {
		return loadErr(path, "PJRT_Api_Version struct_size %d, want at least %d: corrupt API table", a.VersionStructSize, apiVersionStructSize)
	}
	if a.Major != HeaderAPIMajor {
		return loadErr(path, "PJRT C API version %d.%d has major version %d; this build (go-xla v0.3.0, header %d.%d) needs major version %d",
			a.Major, a.Minor, a.Major, HeaderAPIMajor, HeaderAPIMinor, HeaderAPIMajor)
	}
	if a.Minor < MinAPIMinor {
		return loadErr(path, "PJRT C API version %d.%d is too old: this build (go-xla v0.3.0, header %d.%d) needs at least %d.%d",
			a.Major, a.Minor, HeaderAPIMajor, HeaderAPIMinor, HeaderAPIMajor, MinAPIMinor)
	}
	if a.StructSize < RequiredAPIStructSize {
		return loadErr(path, "PJRT_Api function table is %d bytes (API %d.%d) but go-xla calls functions up to byte %d (PJRT_Executable_GetCompiledMemoryStats): too old or corrupt",
			a.StructSize, a.Major, a.Minor, RequiredAPIStructSize)
	}
	return nil
}

package plugin

// apiFunc is a PJRT_Api function by name and slot (index after the
// version). TestABILayout checks every slot against go-xla's header.
type apiFunc struct {
	name string
	slot int
}

// The functions go-xla calls for each kind of operation. A plugin may leave
// a function NULL (or end its table before it); calling it would crash the
// process, so each operation first checks its functions (library.require).
var (
	needLoad = []apiFunc{
		{"PJRT_Error_Destroy", 0}, {"PJRT_Error_Message", 1}, {"PJRT_Error_GetCode", 2},
		{"PJRT_Plugin_Initialize", 3}, {"PJRT_Plugin_Attributes", 4},
	}
	needClient = []apiFunc{
		{"PJRT_Client_Create", 10}, {"PJRT_Client_Destroy", 11}, {"PJRT_Client_PlatformName", 12},
		{"PJRT_Client_ProcessIndex", 13}, {"PJRT_Client_PlatformVersion", 14},
		{"PJRT_Client_AddressableDevices", 16}, {"PJRT_Device_LocalHardwareId", 31},
	}
	needTransfer = []apiFunc{
		{"PJRT_Client_BufferFromHostBuffer", 22}, {"PJRT_Event_Destroy", 5}, {"PJRT_Event_Await", 8},
		{"PJRT_Device_IsAddressable", 30}, {"PJRT_Buffer_ToHostBuffer", 70}, {"PJRT_Buffer_Destroy", 58},
	}
	needCompile = []apiFunc{
		{"PJRT_Client_Compile", 20}, {"PJRT_LoadedExecutable_GetExecutable", 51},
		{"PJRT_Executable_Name", 41}, {"PJRT_Executable_NumOutputs", 44},
		{"PJRT_Executable_GetCompiledMemoryStats", 96}, {"PJRT_Executable_Destroy", 40},
		{"PJRT_LoadedExecutable_Destroy", 50},
	}
	needCompileMulti = []apiFunc{{"PJRT_Client_DefaultDeviceAssignment", 21}}
	needExecute      = []apiFunc{
		{"PJRT_LoadedExecutable_Execute", 55}, {"PJRT_Event_Destroy", 5}, {"PJRT_Event_Await", 8},
		{"PJRT_Buffer_ElementType", 59}, {"PJRT_Buffer_Dimensions", 60}, {"PJRT_Buffer_Destroy", 58},
	}
)

func allAPIFuncs() []apiFunc {
	var out []apiFunc
	for _, l := range [][]apiFunc{needLoad, needClient, needTransfer, needCompile, needCompileMulti, needExecute} {
		out = append(out, l...)
	}
	return out
}

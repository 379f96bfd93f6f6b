// A fake PJRT plugin with a working client, compiled against go-xla's copy
// of pjrt_c_api.h: two devices (ids 10 and 11, kind "Fake Device"), memory
// statistics, and buffers that live in host memory. Nothing compiles. It
// lets the tests drive the client, transfer and memory paths of package
// plugin without real hardware. With -DFAKE_PACKED, sub-byte element types
// are handed back densely packed (two 4-bit or four 2-bit values per byte).
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pjrt_c_api.h"

struct PJRT_Error { const char* message; PJRT_Error_Code code; };
struct PJRT_Client { int unused; };
struct PJRT_Device { int id; int hw; int64_t in_use; };
struct PJRT_DeviceDescription { struct PJRT_Device* device; };
struct PJRT_Buffer {
  PJRT_Buffer_Type type;
  int64_t dims[8];
  size_t num_dims;
  size_t size;  // bytes as given by the host (one byte per sub-byte element)
  unsigned char* data;
  struct PJRT_Device* device;
};

static PJRT_Error* fail(const char* msg) {
  PJRT_Error* e = malloc(sizeof *e);
  e->message = msg;
  e->code = PJRT_Error_Code_INVALID_ARGUMENT;
  return e;
}

static void error_destroy(PJRT_Error_Destroy_Args* a) { free(a->error); }
static void error_message(PJRT_Error_Message_Args* a) {
  a->message = a->error->message;
  a->message_size = strlen(a->error->message);
}
static PJRT_Error* error_code(PJRT_Error_GetCode_Args* a) { a->code = a->error->code; return NULL; }
static PJRT_Error* plugin_initialize(PJRT_Plugin_Initialize_Args* a) { return NULL; }
static PJRT_Error* plugin_attributes(PJRT_Plugin_Attributes_Args* a) { a->num_attributes = 0; return NULL; }
static PJRT_Error* event_await(PJRT_Event_Await_Args* a) { return NULL; }
static PJRT_Error* event_destroy(PJRT_Event_Destroy_Args* a) { return NULL; }

static struct PJRT_Client the_client;
static struct PJRT_Device devices[2] = {{10, 0, 0}, {11, 1, 0}};
static struct PJRT_DeviceDescription descriptions[2] = {{&devices[0]}, {&devices[1]}};
static PJRT_Device* device_list[2] = {&devices[0], &devices[1]};

static PJRT_Error* client_create(PJRT_Client_Create_Args* a) { a->client = &the_client; return NULL; }
static PJRT_Error* client_destroy(PJRT_Client_Destroy_Args* a) { return NULL; }
static PJRT_Error* platform_name(PJRT_Client_PlatformName_Args* a) {
  a->platform_name = "fake";
  a->platform_name_size = 4;
  return NULL;
}
static PJRT_Error* platform_version(PJRT_Client_PlatformVersion_Args* a) {
  a->platform_version = "fake 1.0";
  a->platform_version_size = 8;
  return NULL;
}
static PJRT_Error* process_index(PJRT_Client_ProcessIndex_Args* a) { a->process_index = 0; return NULL; }
static PJRT_Error* addressable_devices(PJRT_Client_AddressableDevices_Args* a) {
  a->addressable_devices = device_list;
  a->num_addressable_devices = 2;
  return NULL;
}
static PJRT_Error* hardware_id(PJRT_Device_LocalHardwareId_Args* a) { a->local_hardware_id = a->device->hw; return NULL; }
static PJRT_Error* is_addressable(PJRT_Device_IsAddressable_Args* a) { a->is_addressable = true; return NULL; }
static PJRT_Error* get_description(PJRT_Device_GetDescription_Args* a) {
  a->device_description = &descriptions[a->device->hw];
  return NULL;
}
static PJRT_Error* description_id(PJRT_DeviceDescription_Id_Args* a) { a->id = a->device_description->device->id; return NULL; }
static PJRT_Error* description_kind(PJRT_DeviceDescription_Kind_Args* a) {
  a->device_kind = "Fake Device";
  a->device_kind_size = strlen("Fake Device");
  return NULL;
}
static PJRT_Error* description_process_index(PJRT_DeviceDescription_ProcessIndex_Args* a) { a->process_index = 0; return NULL; }
static PJRT_Error* description_debug_string(PJRT_DeviceDescription_DebugString_Args* a) {
  a->debug_string = "FakeDevice";
  a->debug_string_size = 10;
  return NULL;
}
static PJRT_Error* memory_stats(PJRT_Device_MemoryStats_Args* a) {
  a->bytes_in_use = a->device->in_use;
  a->peak_bytes_in_use = 1 << 20;
  a->peak_bytes_in_use_is_set = true;
  a->bytes_limit = 1 << 30;
  a->bytes_limit_is_set = true;
  return NULL;
}

static int sub_byte_bits(PJRT_Buffer_Type t) {
  switch (t) {
    case PJRT_Buffer_Type_S4: case PJRT_Buffer_Type_U4: case PJRT_Buffer_Type_F4E2M1FN: return 4;
    case PJRT_Buffer_Type_S2: case PJRT_Buffer_Type_U2: return 2;
    default: return 0;
  }
}

static int64_t elements(const struct PJRT_Buffer* b) {
  int64_t n = 1;
  for (size_t i = 0; i < b->num_dims; i++) n *= b->dims[i];
  return n;
}

static PJRT_Error* from_host(PJRT_Client_BufferFromHostBuffer_Args* a) {
  if (a->num_dims > 8) return fail("fake: too many dimensions");
  if (a->num_byte_strides != 0) return fail("fake: byte strides are not supported");
  struct PJRT_Buffer* b = calloc(1, sizeof *b);
  b->type = a->type;
  b->num_dims = a->num_dims;
  memcpy(b->dims, a->dims, a->num_dims * sizeof(int64_t));
  size_t per;
  switch (a->type) {
    case PJRT_Buffer_Type_PRED: case PJRT_Buffer_Type_S8: case PJRT_Buffer_Type_U8:
    case PJRT_Buffer_Type_S4: case PJRT_Buffer_Type_U4: case PJRT_Buffer_Type_S2: case PJRT_Buffer_Type_U2:
    case PJRT_Buffer_Type_F8E5M2: case PJRT_Buffer_Type_F8E4M3FN: case PJRT_Buffer_Type_F8E4M3B11FNUZ:
    case PJRT_Buffer_Type_F8E5M2FNUZ: case PJRT_Buffer_Type_F8E4M3FNUZ: case PJRT_Buffer_Type_F8E4M3:
    case PJRT_Buffer_Type_F8E3M4: case PJRT_Buffer_Type_F8E8M0FNU: case PJRT_Buffer_Type_F4E2M1FN: per = 1; break;
    case PJRT_Buffer_Type_S16: case PJRT_Buffer_Type_U16: case PJRT_Buffer_Type_F16: case PJRT_Buffer_Type_BF16: per = 2; break;
    case PJRT_Buffer_Type_S32: case PJRT_Buffer_Type_U32: case PJRT_Buffer_Type_F32: per = 4; break;
    case PJRT_Buffer_Type_S64: case PJRT_Buffer_Type_U64: case PJRT_Buffer_Type_F64: case PJRT_Buffer_Type_C64: per = 8; break;
    case PJRT_Buffer_Type_C128: per = 16; break;
    default: free(b); return fail("fake: unsupported element type");
  }
  b->size = per * (size_t)elements(b);
  b->data = malloc(b->size ? b->size : 1);
  memcpy(b->data, a->data, b->size);
  b->device = a->device;
  b->device->in_use += (int64_t)b->size;
  a->buffer = b;
  a->done_with_host_buffer = NULL;
  return NULL;
}

static size_t host_size(const struct PJRT_Buffer* b) {
#ifdef FAKE_PACKED
  int bits = sub_byte_bits(b->type);
  if (bits) return ((size_t)elements(b) * bits + 7) / 8;
#endif
  return b->size;
}

static PJRT_Error* to_host(PJRT_Buffer_ToHostBuffer_Args* a) {
  const struct PJRT_Buffer* b = a->src;
  size_t n = host_size(b);
  a->event = NULL;
  if (a->dst == NULL) {
    a->dst_size = n;
    return NULL;
  }
  if (a->dst_size < n) return fail("fake: destination too small");
  if (n == b->size) {
    memcpy(a->dst, b->data, n);
    return NULL;
  }
  int bits = sub_byte_bits(b->type);
  unsigned char* dst = a->dst;
  memset(dst, 0, n);
  int64_t count = elements(b);
  for (int64_t i = 0; i < count; i++) {
    unsigned v = b->data[i] & ((1u << bits) - 1);
    dst[(i * bits) / 8] |= (unsigned char)(v << ((i * bits) % 8));
  }
  return NULL;
}

static PJRT_Error* buffer_destroy(PJRT_Buffer_Destroy_Args* a) {
  a->buffer->device->in_use -= (int64_t)a->buffer->size;
  free(a->buffer->data);
  free(a->buffer);
  return NULL;
}
static PJRT_Error* buffer_type(PJRT_Buffer_ElementType_Args* a) { a->type = a->buffer->type; return NULL; }
static PJRT_Error* buffer_dims(PJRT_Buffer_Dimensions_Args* a) {
  a->dims = a->buffer->dims;
  a->num_dims = a->buffer->num_dims;
  return NULL;
}
static PJRT_Error* buffer_device(PJRT_Buffer_Device_Args* a) { a->device = a->buffer->device; return NULL; }

static PJRT_Api api;

const PJRT_Api* GetPjrtApi(void) {
  api.struct_size = PJRT_Api_STRUCT_SIZE;
  api.pjrt_api_version.struct_size = PJRT_Api_Version_STRUCT_SIZE;
  api.pjrt_api_version.major_version = PJRT_API_MAJOR;
  api.pjrt_api_version.minor_version = PJRT_API_MINOR;
  api.PJRT_Error_Destroy = error_destroy;
  api.PJRT_Error_Message = error_message;
  api.PJRT_Error_GetCode = error_code;
  api.PJRT_Plugin_Initialize = plugin_initialize;
  api.PJRT_Plugin_Attributes = plugin_attributes;
  api.PJRT_Event_Await = event_await;
  api.PJRT_Event_Destroy = event_destroy;
  api.PJRT_Client_Create = client_create;
  api.PJRT_Client_Destroy = client_destroy;
  api.PJRT_Client_PlatformName = platform_name;
  api.PJRT_Client_PlatformVersion = platform_version;
  api.PJRT_Client_ProcessIndex = process_index;
  api.PJRT_Client_AddressableDevices = addressable_devices;
  api.PJRT_Client_BufferFromHostBuffer = from_host;
  api.PJRT_Device_LocalHardwareId = hardware_id;
  api.PJRT_Device_IsAddressable = is_addressable;
  api.PJRT_Device_GetDescription = get_description;
  api.PJRT_Device_MemoryStats = memory_stats;
  api.PJRT_DeviceDescription_Id = description_id;
  api.PJRT_DeviceDescription_Kind = description_kind;
  api.PJRT_DeviceDescription_ProcessIndex = description_process_index;
  api.PJRT_DeviceDescription_DebugString = description_debug_string;
  api.PJRT_Buffer_ToHostBuffer = to_host;
  api.PJRT_Buffer_Destroy = buffer_destroy;
  api.PJRT_Buffer_ElementType = buffer_type;
  api.PJRT_Buffer_Dimensions = buffer_dims;
  api.PJRT_Buffer_Device = buffer_device;
  return &api;
}

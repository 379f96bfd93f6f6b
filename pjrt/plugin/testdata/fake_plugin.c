// A fake PJRT plugin for the loader tests: it exports GetPjrtApi and
// implements just enough of the C API (errors, plugin initialisation and
// attributes) for a loader to get as far as PJRT_Client_Create, which fails.
// The test compiles it with -D flags that choose the version, the size of
// the API table and the slot numbers (from the package's constants).
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifndef FAKE_MAJOR
#define FAKE_MAJOR 0
#endif
#ifndef FAKE_MINOR
#define FAKE_MINOR 104
#endif

typedef struct {
  size_t struct_size;
  void* extension_start;
  int major_version;
  int minor_version;
} fake_version;

typedef struct {
  size_t struct_size;
  void* extension_start;
  fake_version version;
  void* slots[NSLOTS];
} fake_api;

typedef struct {
  const char* message;
  int code;
} fake_error;

typedef struct { size_t struct_size; void* extension_start; void* error; } error_destroy_args;
typedef struct { size_t struct_size; void* extension_start; const void* error; const char* message; size_t message_size; } error_message_args;
typedef struct { size_t struct_size; void* extension_start; const void* error; int code; } error_code_args;

typedef struct {
  size_t struct_size;
  void* extension_start;
  const char* name;
  size_t name_size;
  int type;  // 0: string
  union {
    const char* string_value;
    int64_t int64_value;
    const int64_t* int64_array_value;
    float float_value;
    bool bool_value;
  };
  size_t value_size;
} named_value;

typedef struct { size_t struct_size; void* extension_start; const named_value* attributes; size_t num_attributes; } attributes_args;

static void error_destroy(error_destroy_args* a) { free(a->error); }

static void error_message(error_message_args* a) {
  const fake_error* e = a->error;
  a->message = e->message;
  a->message_size = strlen(e->message);
}

static void* error_code(error_code_args* a) {
  a->code = ((const fake_error*)a->error)->code;
  return NULL;
}

static void* plugin_initialize(void* a) { return NULL; }

static named_value attrs[1];

static void* plugin_attributes(attributes_args* a) {
  attrs[0].struct_size = sizeof(named_value);
  attrs[0].name = "xla_version";
  attrs[0].name_size = strlen("xla_version");
  attrs[0].type = 0;
  attrs[0].string_value = "fake-1.0";
  attrs[0].value_size = strlen("fake-1.0");
  a->attributes = attrs;
  a->num_attributes = 1;
  return NULL;
}

static void* client_create(void* a) {
  fake_error* e = malloc(sizeof *e);
  e->message = "fake plugin: PJRT_Client_Create is not implemented";
  e->code = 12;  // UNIMPLEMENTED
  return e;
}

// Functions a client needs besides PJRT_Client_Create: present (so that a
// loader's "is it implemented" check passes) but never reached, since
// client creation fails first.
static void* unimplemented(void* a) {
  fake_error* e = malloc(sizeof *e);
  e->message = "fake plugin: not implemented";
  e->code = 12;
  return e;
}

#ifdef STUB_SLOTS
static const int stub_slots[] = {STUB_SLOTS};
#endif

static fake_api api;

const fake_api* GetPjrtApi(void) {
#ifdef FAKE_NULL_API
  return NULL;
#else
#ifdef FAKE_STRUCT_SIZE
  api.struct_size = FAKE_STRUCT_SIZE;
#else
  api.struct_size = sizeof(fake_api);
#endif
  api.version.struct_size = sizeof(fake_version);
  api.version.major_version = FAKE_MAJOR;
  api.version.minor_version = FAKE_MINOR;
  api.slots[SLOT_ERROR_DESTROY] = (void*)error_destroy;
  api.slots[SLOT_ERROR_MESSAGE] = (void*)error_message;
  api.slots[SLOT_ERROR_GETCODE] = (void*)error_code;
#ifndef FAKE_NO_INIT
  api.slots[SLOT_PLUGIN_INITIALIZE] = (void*)plugin_initialize;
#endif
  api.slots[SLOT_PLUGIN_ATTRIBUTES] = (void*)plugin_attributes;
  api.slots[SLOT_CLIENT_CREATE] = (void*)client_create;
#ifdef STUB_SLOTS
  for (size_t i = 0; i < sizeof stub_slots / sizeof stub_slots[0]; i++) api.slots[stub_slots[i]] = (void*)unimplemented;
#endif
  return &api;
#endif
}

// Package plugin loads real PJRT plugins (CUDA, TPU, any PJRT C API shared
// object) behind the device seam of package pjrt, through go-xla's pjrt
// wrapper. It registers itself as the "PLUGIN" kind, so importing it makes
// PJRT_DEVICE=CUDA, PJRT_DEVICE=TPU and PJRT_DEVICE=/abs/path/plugin.so work.
//
// Place in the flow: lazy → pjrt.Client (this package) → go-xla → plugin.
// Imports hlo, pjrt and (with cgo only) github.com/gomlx/go-xla/pjrt and
// github.com/gomlx/compute/dtypes; its tests also use pjrt/host.
//
//	c, err := plugin.OpenClient("CUDA") // or pjrt.Open with PJRT_DEVICE=CUDA
//	exe, err := c.Compile(module, pjrt.CompileOptions{})
//
// Finding a plugin (Find): an absolute or relative path (anything with a '/'
// or ending in ".so") is used as is. CUDA (alias GPU) searches the plugin
// directories for names containing "cuda", then JAX's
// jax_plugins/xla_cuda*/xla_cuda_plugin.so under python's site-packages. TPU
// uses TPU_LIBRARY_PATH, then libtpu.so in the plugin directories and
// site-packages (libtpu/libtpu.so). Any other word is a plugin name searched
// in the plugin directories. The plugin directories are the ':'-separated
// PJRT_PLUGIN_LIBRARY_PATH when set, else go-xla's defaults
// (~/.local/lib/go-xla, /usr/local/lib/go-xla, LD_LIBRARY_PATH,
// /etc/ld.so.conf), holding files named pjrt_c_api_<name>_plugin.so,
// pjrt-plugin-<name>.so or pjrt_plugin_<name>.so.
//
// Loading (Load) never hands a file to dlopen before it passed our own
// checks, because go-xla has none and a bad file crashes the process: it
// must be an ELF shared object for this machine's architecture, not
// truncated, exporting GetPjrtApi; then the PJRT_Api table it returns must
// have major version 0, minor version >= MinAPIMinor and a function table
// long enough for every function go-xla calls (RequiredAPIStructSize).
// Every failure is a *LoadError naming the path and the cause. Before each
// kind of operation (initialising, creating a client, transfers, compiling,
// executing) the functions go-xla will call are checked to be present in the
// table, so a plugin that leaves one NULL gives an error, not a crash.
// Panics from go-xla are recovered at the boundary as a last resort.
//
// Compile prints the module with (*hlo.Module).String (the entry renamed to
// @main) and hands the text to the plugin. Replicas, partitions and the
// device assignment follow torch_xla (see Client.Compile); one-device
// programs are portable. Buffers: every hlo element type with a PJRT buffer
// type (all but f6E2M3FN, f6E3M2FN, tf32), sub-byte types one element per
// byte. MemoryInfo is the plugin's allocator statistics.
//
// The differential harness (Differential, LiftChecks, RandomArgs,
// CompareLiterals) runs one module on a reference client and on a device
// under test and compares the results; `xlajit devices --diff` drives it
// over .mlir files.
//
// Client options for the plugin's PJRT_Client_Create come from
// XLAJIT_PLUGIN_OPTIONS, a comma-separated list of name=value
// (true/false, integers, floats, anything else a string), for example
// XLAJIT_PLUGIN_OPTIONS=preallocate=false,memory_fraction=0.5 for CUDA.
//
// Built with CGO_ENABLED=0 the package compiles and every loader returns
// ErrNoCgo.
package plugin

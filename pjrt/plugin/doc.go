// Package plugin loads real PJRT plugins (CUDA, TPU, any PJRT C API shared
// object) behind the device seam of package pjrt, through go-xla's pjrt
// wrapper. It registers itself as the "PLUGIN" kind, so importing it makes
// PJRT_DEVICE=CUDA, PJRT_DEVICE=TPU and PJRT_DEVICE=/abs/path/plugin.so work.
//
// Place in the flow: lazy → pjrt.Client (this package) → go-xla → plugin.
// Imports hlo, pjrt and (with cgo only) github.com/gomlx/go-xla/pjrt.
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
// Every failure is a *LoadError naming the path and the cause. Panics from
// go-xla are recovered at the boundary as a last resort.
//
// Client options for the plugin's PJRT_Client_Create come from
// XLAJIT_PLUGIN_OPTIONS, a comma-separated list of name=value
// (true/false, integers, floats, anything else a string), for example
// XLAJIT_PLUGIN_OPTIONS=preallocate=false,memory_fraction=0.5 for CUDA.
//
// Built with CGO_ENABLED=0 the package compiles and every loader returns
// ErrNoCgo.
package plugin

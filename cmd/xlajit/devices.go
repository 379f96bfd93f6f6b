package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/xlajit/xlajit/pjrt"
	_ "github.com/xlajit/xlajit/pjrt/host" // the embedded device (PJRT_DEVICE=CPU)
	"github.com/xlajit/xlajit/pjrt/plugin"
)

func init() {
	register(command{name: "devices", short: "list the embedded device and the PJRT plugins found", run: runDevices})
}

const devicesUsage = `usage: xlajit devices [--device D] [--json]

Lists the embedded device and every PJRT plugin found (the plugin directories
of PJRT_PLUGIN_LIBRARY_PATH or go-xla's defaults, JAX's CUDA plugins under
python's site-packages, libtpu), loading each to show its platform, version,
C API version and devices; a plugin that cannot be loaded is listed with the
reason.

With --device (default: $PJRT_DEVICE) naming a plugin (CUDA, TPU, a plugin
name or a .so path), only that one is opened; if it cannot be, the error
(naming the file and the cause) is printed and the exit status is 1.

flags:
`

// deviceFlagUsage is the help text of the --device flag, shared by the
// subcommands that take one (see addDeviceFlag).
const deviceFlagUsage = "PJRT_DEVICE spec: CPU (the embedded device), CUDA, TPU, a plugin name, or a path to a PJRT plugin .so"

// addDeviceFlag registers --device on fs with $PJRT_DEVICE as its default.
// After fs.Parse, pass the value to pjrt.Open (through openDevice for
// commands where "" means the embedded device used directly): this binary
// imports both pjrt/host and pjrt/plugin, so every kind is registered.
func addDeviceFlag(fs *flag.FlagSet) *string {
	return fs.String("device", os.Getenv("PJRT_DEVICE"), deviceFlagUsage)
}

// isEmbedded reports whether a device spec names the embedded device.
func isEmbedded(spec string) bool {
	s := strings.TrimSpace(spec)
	return s == "" || strings.EqualFold(s, "CPU")
}

type deviceReport struct {
	Kind            string        `json:"kind"` // "embedded" or "plugin"
	Name            string        `json:"name"`
	Path            string        `json:"path,omitempty"`
	Source          string        `json:"source,omitempty"`
	Platform        string        `json:"platform,omitempty"`
	PlatformVersion string        `json:"platform_version,omitempty"`
	APIVersion      string        `json:"pjrt_c_api,omitempty"`
	Attributes      []string      `json:"attributes,omitempty"`
	Devices         []pjrt.Device `json:"devices,omitempty"`
	Error           string        `json:"error,omitempty"`
}

func runDevices(args []string) int {
	fs := flag.NewFlagSet("devices", flag.ContinueOnError)
	fs.SetOutput(cliErr)
	device := addDeviceFlag(fs)
	asJSON := fs.Bool("json", false, "print a JSON array")
	diff := newDiffFlags(fs)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), devicesUsage)
		fs.VisitAll(func(f *flag.Flag) {
			if !diff.hidden[f.Name] {
				fmt.Fprintf(fs.Output(), "  -%s\n    \t%s\n", f.Name, f.Usage)
			}
		})
	}
	paths, err := parseInterleaved(fs, args)
	if err == flag.ErrHelp {
		return 0
	}
	if err != nil {
		return 2
	}
	if diff.on {
		return runDiff(*device, diff, paths)
	}
	if len(paths) > 0 {
		fs.Usage()
		return 2
	}

	var reports []deviceReport
	status := 0
	if isEmbedded(*device) {
		reports = append(reports, embeddedReport())
		for _, in := range plugin.Installed() {
			reports = append(reports, pluginReport(in))
		}
	} else {
		in := plugin.Installation{Candidate: plugin.Candidate{Name: *device}}
		in.Info, in.Err = plugin.Inspect(*device)
		if in.Info != nil {
			in.Path = in.Info.Path
		}
		if in.Err != nil {
			fmt.Fprintf(cliErr, "xlajit devices: %v\n", in.Err)
			if !*asJSON {
				return 1
			}
			status = 1
		}
		reports = append(reports, pluginReport(in))
	}
	if *asJSON {
		enc := json.NewEncoder(cliOut)
		enc.SetIndent("", "  ")
		if err := enc.Encode(reports); err != nil {
			fmt.Fprintf(cliErr, "xlajit devices: %v\n", err)
			return 1
		}
		return status
	}
	for _, r := range reports {
		printReport(r)
	}
	return status
}

func embeddedReport() deviceReport {
	r := deviceReport{Kind: "embedded", Name: "cpu"}
	if _, set := os.LookupEnv("XLAJIT_QUIET"); !set {
		os.Setenv("XLAJIT_QUIET", "1") // this listing says the same as the opener's info line
	}
	c, err := pjrt.Open("CPU")
	if err != nil {
		r.Error = err.Error()
		return r
	}
	defer c.Close()
	r.Platform, r.PlatformVersion, r.Devices = c.Platform(), c.PlatformVersion(), c.Devices()
	return r
}

func pluginReport(in plugin.Installation) deviceReport {
	r := deviceReport{Kind: "plugin", Name: in.Name, Path: in.Path, Source: in.Source}
	if in.Err != nil {
		r.Error = in.Err.Error()
		return r
	}
	info := in.Info
	r.Path = info.Path
	r.APIVersion = fmt.Sprintf("%d.%d", info.API.Major, info.API.Minor)
	r.Platform, r.PlatformVersion, r.Devices = info.Platform, info.PlatformVersion, info.Devices
	for k, v := range info.Attributes {
		r.Attributes = append(r.Attributes, k+"="+v)
	}
	sort.Strings(r.Attributes)
	return r
}

func printReport(r deviceReport) {
	if r.Kind == "embedded" {
		fmt.Fprintf(cliOut, "embedded: %s", r.Name)
	} else {
		fmt.Fprintf(cliOut, "plugin %s: %s", r.Name, r.Path)
		if r.Source != "" {
			fmt.Fprintf(cliOut, " [%s]", r.Source)
		}
	}
	fmt.Fprintln(cliOut)
	if r.Error != "" {
		fmt.Fprintf(cliOut, "  error: %s\n", r.Error)
		return
	}
	fmt.Fprintf(cliOut, "  platform %s, %s", r.Platform, r.PlatformVersion)
	if r.APIVersion != "" {
		fmt.Fprintf(cliOut, ", PJRT C API %s", r.APIVersion)
	}
	fmt.Fprintln(cliOut)
	if len(r.Attributes) > 0 {
		fmt.Fprintf(cliOut, "  attributes: %s\n", strings.Join(r.Attributes, " "))
	}
	for _, d := range r.Devices {
		fmt.Fprintf(cliOut, "  device %d: %s\n", d.ID, d.Kind)
	}
}

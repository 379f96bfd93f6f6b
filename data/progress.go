package data

import (
	"io"
	"time"

	"github.com/schollz/progressbar/v3"
)

// Progress is a progress bar for long loops: count, percentage, elapsed
// and remaining time, and throughput in units per second.
type Progress struct {
	bar *progressbar.ProgressBar
}

// NewProgress draws a bar of total steps on w (os.Stderr for a terminal;
// any writer works) labelled desc; unit names what a step counts
// ("batch", "img").
func NewProgress(w io.Writer, total int64, desc, unit string) *Progress {
	return &Progress{bar: progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString(unit),
		progressbar.OptionSetWidth(24),
		progressbar.OptionThrottle(200*time.Millisecond),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionOnCompletion(func() { io.WriteString(w, "\n") }),
	)}
}

// Add advances the bar by n steps.
func (p *Progress) Add(n int) { _ = p.bar.Add(n) }

// Describe changes the label (e.g. to show the running loss).
func (p *Progress) Describe(desc string) { p.bar.Describe(desc) }

// Finish completes the bar and ends its line.
func (p *Progress) Finish() { _ = p.bar.Finish() }

package conform

import (
	"fmt"
	"time"
)

// Status is the outcome of one case.
type Status string

const (
	Pass Status = "pass"
	Fail Status = "fail"
	Skip Status = "skip"
)

// Kind classifies a failure, for routing (see Summary.ByKind).
type Kind string

const (
	KindRead        Kind = "read"        // the file could not be read
	KindParse       Kind = "parse"       // hlo.ParseModule failed
	KindEntry       Kind = "entry"       // no entry function, or it needs arguments
	KindUnsupported Kind = "unsupported" // an op the device has no kernel for
	KindCompile     Kind = "compile"     // an op's kernel rejected it at compile time
	KindRuntime     Kind = "runtime"     // the program failed while running
	KindCheck       Kind = "check"       // a check op did not hold
	KindFileCheck   Kind = "filecheck"   // the printed results did not match the FileCheck directives
	KindNoCheck     Kind = "check-missing"
	KindTimeout     Kind = "timeout"
	KindPanic       Kind = "panic"
)

// Result is the outcome of one case: one split part of one file.
type Result struct {
	File   string     `json:"file"` // as given, or relative to Options.Root
	Case   int        `json:"case"` // index of the split part, from 0
	Line   int        `json:"line"` // first line of the part in the file
	Func   string     `json:"function"`
	Status Status     `json:"status"`
	Skip   SkipReason `json:"skip,omitempty"`
	Kind   Kind       `json:"kind,omitempty"`
	Op     string     `json:"op,omitempty"` // the op a failure is attributed to
	Reason string     `json:"reason"`
	// Upstream is set when upstream disables interpretation of the file
	// ("RUN-DISABLED(inaccurate)"); the case runs anyway.
	Upstream string `json:"upstream,omitempty"`
	// Checks is the number of check verdicts the case produced.
	Checks   int           `json:"checks"`
	Duration time.Duration `json:"-"`
	Phases   Phases        `json:"-"`
	Seconds  float64       `json:"duration"`
	// Missing lists every op of the case the device has no kernel for
	// (set for KindUnsupported).
	Missing []string `json:"missing,omitempty"`
}

// ID is the case's stable name: "path#case".
func (r *Result) ID() string { return fmt.Sprintf("%s#%d", r.File, r.Case) }

// Name is ID plus the entry function: "path#case @fn".
func (r *Result) Name() string {
	if r.Func == "" {
		return r.ID()
	}
	return r.ID() + " @" + r.Func
}

func (r *Result) fail(k Kind, op, format string, args ...any) {
	r.Status, r.Kind, r.Op = Fail, k, op
	r.Reason = fmt.Sprintf(format, args...)
}

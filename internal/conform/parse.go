package conform

import (
	"github.com/xlajit/xlajit/hlo"
)

// chunk is one split part of a file.
type chunk struct {
	text string
	line int // first line in the file, 1-based
}

// splitFile splits a file into cases with MLIR's -split-input-file rule.
func splitFile(src string) []chunk {
	var out []chunk
	for _, c := range hlo.SplitInputFile([]byte(src)) {
		out = append(out, chunk{text: c.Text, line: c.Line})
	}
	return out
}

// parseChunk parses one case; Locs and errors carry file lines.
func parseChunk(name, text string, line int) (*hlo.Module, error) {
	return hlo.ParseModuleAt(name, []byte(text), line)
}

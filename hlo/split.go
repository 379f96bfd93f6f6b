package hlo

import "bytes"

// Chunk is one part of a file split at `// -----` markers.
type Chunk struct {
	Text string
	Line int // 1-based file line of the chunk's first line
}

var splitMarker = []byte("// -----")

// SplitInputFile splits src wherever the substring `// -----` occurs, as
// MLIR's -split-input-file does (so `// // -----` splits too). A chunk
// runs from the end of one marker to the start of the next; a file with no
// marker is one chunk. Chunk.Line lets ParseModuleAt report file lines.
func SplitInputFile(src []byte) []Chunk {
	var out []Chunk
	start, line := 0, 1
	for {
		i := bytes.Index(src[start:], splitMarker)
		if i < 0 {
			out = append(out, Chunk{Text: string(src[start:]), Line: line})
			return out
		}
		end := start + i
		out = append(out, Chunk{Text: string(src[start:end]), Line: line})
		next := end + len(splitMarker)
		line += bytes.Count(src[start:next], []byte{'\n'})
		start = next
	}
}

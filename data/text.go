package data

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"
)

// Vocab maps the distinct characters of a text to token ids (sorted by
// code point, so the same text always gives the same ids).
type Vocab struct {
	Runes []rune
	ids   map[rune]int32
}

// NewVocab collects the characters of text.
func NewVocab(text string) *Vocab {
	v := &Vocab{ids: map[rune]int32{}}
	for _, r := range text {
		if _, ok := v.ids[r]; !ok {
			v.ids[r] = 0
			v.Runes = append(v.Runes, r)
		}
	}
	sort.Slice(v.Runes, func(i, j int) bool { return v.Runes[i] < v.Runes[j] })
	for i, r := range v.Runes {
		v.ids[r] = int32(i)
	}
	return v
}

// Size is the number of tokens.
func (v *Vocab) Size() int { return len(v.Runes) }

// Encode maps s to token ids; a character outside the vocabulary is an
// error naming it.
func (v *Vocab) Encode(s string) ([]int32, error) {
	out := make([]int32, 0, len(s))
	for i, r := range s {
		id, ok := v.ids[r]
		if !ok {
			return nil, fmt.Errorf("data: character %q at byte %d is not in the vocabulary", r, i)
		}
		out = append(out, id)
	}
	return out, nil
}

// Decode maps token ids back to text (ids out of range become U+FFFD).
func (v *Vocab) Decode(ids []int64) string {
	var b strings.Builder
	for _, id := range ids {
		if id < 0 || int(id) >= len(v.Runes) {
			b.WriteRune('\uFFFD')
			continue
		}
		b.WriteRune(v.Runes[id])
	}
	return b.String()
}

// Text is a next-character dataset: example i is the window of Seq tokens
// starting at i*Stride ("x") and the same window shifted by one ("y").
type Text struct {
	Vocab  *Vocab
	Tokens []int32
	Seq    int
	Stride int
}

// NewText encodes text with its own vocabulary and cuts windows of seq
// tokens every stride tokens.
func NewText(text string, seq, stride int) (*Text, error) {
	v := NewVocab(text)
	toks, _ := v.Encode(text)
	return NewTextTokens(v, toks, seq, stride)
}

// NewTextTokens makes a Text over already encoded tokens.
func NewTextTokens(v *Vocab, tokens []int32, seq, stride int) (*Text, error) {
	if seq <= 0 || stride <= 0 {
		return nil, fmt.Errorf("data.NewText: sequence length %d and stride %d must be positive", seq, stride)
	}
	if len(tokens) < seq+1 {
		return nil, fmt.Errorf("data.NewText: %d tokens are too few for one window of %d (+1)", len(tokens), seq)
	}
	return &Text{Vocab: v, Tokens: tokens, Seq: seq, Stride: stride}, nil
}

// Len is the number of windows.
func (t *Text) Len() int { return (len(t.Tokens)-t.Seq-1)/t.Stride + 1 }

// Specs: x and y, i32 [Seq] each.
func (t *Text) Specs() []Spec {
	return []Spec{{"x", dtypeOf[int32](), []int64{int64(t.Seq)}}, {"y", dtypeOf[int32](), []int64{int64(t.Seq)}}}
}

// Read copies window i.
func (t *Text) Read(i int, dst []any) error {
	if i < 0 || i >= t.Len() {
		return fmt.Errorf("data: window %d out of range [0, %d)", i, t.Len())
	}
	if len(dst) != 2 {
		return fmt.Errorf("data: %d destinations for 2 fields", len(dst))
	}
	s := i * t.Stride
	// Both destinations are checked before either is written.
	for _, write := range []bool{false, true} {
		if err := copyTyped(dst[0], t.Tokens, s, t.Seq, write); err != nil {
			return fmt.Errorf("data: field \"x\": %w", err)
		}
		if err := copyTyped(dst[1], t.Tokens, s+1, t.Seq, write); err != nil {
			return fmt.Errorf("data: field \"y\": %w", err)
		}
	}
	return nil
}

// Split cuts the token stream at fraction frac (in [0, 1]) into two
// datasets (training and validation) sharing the vocabulary.
func (t *Text) Split(frac float64) (*Text, *Text, error) {
	if !(frac >= 0 && frac <= 1) { // NaN too
		return nil, nil, fmt.Errorf("data.Text.Split: fraction %v outside [0, 1]", frac)
	}
	cut := int(float64(len(t.Tokens)) * frac)
	a, err := NewTextTokens(t.Vocab, t.Tokens[:cut], t.Seq, t.Stride)
	if err != nil {
		return nil, nil, err
	}
	b, err := NewTextTokens(t.Vocab, t.Tokens[cut:], t.Seq, t.Stride)
	if err != nil {
		return nil, nil, err
	}
	return a, b, nil
}

// ReadTextFiles concatenates the files under root whose base name matches
// pattern (filepath.Match syntax), in lexical path order, until maxBytes
// (0: no limit) are read; files are separated by a newline. No more of a
// file than the limit leaves is read, and a cut inside a multi-byte
// character drops that character. An empty result is an error.
func ReadTextFiles(root, pattern string, maxBytes int) (string, error) {
	if _, err := filepath.Match(pattern, ""); err != nil {
		return "", fmt.Errorf("data.ReadTextFiles: pattern %q: %w", pattern, err)
	}
	if maxBytes < 0 {
		return "", fmt.Errorf("data.ReadTextFiles: maxBytes %d is negative (0: no limit)", maxBytes)
	}
	var b strings.Builder
	errFull := fmt.Errorf("full")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != root && (strings.HasPrefix(n, ".") || n == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if ok, _ := filepath.Match(pattern, d.Name()); !ok || !d.Type().IsRegular() {
			return nil
		}
		limit := -1
		if maxBytes > 0 {
			limit = maxBytes - b.Len()
		}
		body, cut, err := readUpTo(p, limit)
		if err != nil {
			return err
		}
		b.Write(body)
		b.WriteByte('\n')
		if cut || maxBytes > 0 && b.Len() >= maxBytes {
			return errFull
		}
		return nil
	})
	if err != nil && err != errFull {
		return "", fmt.Errorf("data.ReadTextFiles: %w", err)
	}
	if b.Len() == 0 {
		return "", fmt.Errorf("data.ReadTextFiles: no file under %s matches %q", root, pattern)
	}
	return strings.ToValidUTF8(b.String(), "\uFFFD"), nil
}

// readUpTo reads the file at p, or only its first limit bytes (limit >=
// 0; cut reports that the file goes on) without a character cut at the
// end.
func readUpTo(p string, limit int) (body []byte, cut bool, err error) {
	if limit < 0 {
		body, err = os.ReadFile(p)
		return body, false, err
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	// One byte past the limit tells whether the file goes on.
	if body, err = io.ReadAll(io.LimitReader(f, int64(limit)+1)); err != nil {
		return nil, false, err
	}
	if len(body) <= limit {
		return body, false, nil
	}
	body = body[:limit]
	// Drop a last character that lost its final bytes to the cut.
	for i := len(body) - 1; i >= 0 && i >= len(body)-utf8.UTFMax; i-- {
		if utf8.RuneStart(body[i]) {
			if !utf8.FullRune(body[i:]) {
				body = body[:i]
			}
			break
		}
	}
	return body, true, nil
}

package pjrt

import (
	"fmt"
	"strconv"
	"strings"
)

// String returns XLA's text of the sharding (HloSharding::ToString):
// "{replicated}", "{maximal device=1}", "{manual}", "{unknown}",
// "{devices=[2,2]0,1,2,3}", "{devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}",
// a tuple "{{replicated}, {devices=[2]0,1}}". A nil sharding is "".
func (s *Sharding) String() string {
	if s == nil {
		return ""
	}
	if t := s.text.Load(); t != nil {
		return *t
	}
	var b strings.Builder
	s.write(&b)
	t := b.String()
	s.text.Store(&t)
	return t
}

func (s *Sharding) write(b *strings.Builder) {
	switch s.Type {
	case ShardReplicated:
		b.WriteString("{replicated}")
	case ShardManual:
		b.WriteString("{manual}")
	case ShardUnknown:
		b.WriteString("{unknown}")
	case ShardMaximal:
		fmt.Fprintf(b, "{maximal device=%d}", s.Device)
	case ShardTuple:
		b.WriteByte('{')
		for i, e := range s.Elems {
			if i > 0 {
				b.WriteString(", ")
			}
			e.write(b)
		}
		b.WriteByte('}')
	case ShardTiled:
		b.WriteString("{devices=[")
		for i, t := range s.Tile {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.FormatInt(t, 10))
		}
		b.WriteByte(']')
		for i, d := range s.Devices {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.FormatInt(d, 10))
		}
		if s.LastTileDimReplicate {
			b.WriteString(" last_tile_dim_replicate")
		}
		b.WriteByte('}')
	default:
		fmt.Fprintf(b, "{type=%d}", int(s.Type))
	}
}

// ParseSharding parses XLA's sharding text: the forms String prints, the
// iota tile assignment "{devices=[4,2]<=[2,4]T(1,0)}", and
// "last_tile_dims={replicated}" (normalized to last_tile_dim_replicate).
func ParseSharding(text string) (*Sharding, error) {
	p := &shardingParser{s: text}
	s, err := p.sharding()
	if err == nil {
		p.space()
		if p.i < len(p.s) {
			err = p.errorf("unexpected %q after the sharding", p.s[p.i:])
		}
	}
	if err != nil {
		return nil, fmt.Errorf("pjrt: sharding %q: %w", text, err)
	}
	return s, nil
}

type shardingParser struct {
	s string
	i int
}

func (p *shardingParser) errorf(format string, args ...any) error {
	return fmt.Errorf("at offset %d: %s", p.i, fmt.Sprintf(format, args...))
}

func (p *shardingParser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n') {
		p.i++
	}
}

func (p *shardingParser) eat(tok string) bool {
	p.space()
	if strings.HasPrefix(p.s[p.i:], tok) {
		p.i += len(tok)
		return true
	}
	return false
}

func (p *shardingParser) expect(tok string) error {
	if !p.eat(tok) {
		return p.errorf("want %q", tok)
	}
	return nil
}

func (p *shardingParser) int() (int64, error) {
	p.space()
	j := p.i
	if j < len(p.s) && p.s[j] == '-' {
		j++
	}
	for j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
		j++
	}
	v, err := strconv.ParseInt(p.s[p.i:j], 10, 64)
	if err != nil {
		return 0, p.errorf("want an integer")
	}
	p.i = j
	return v, nil
}

// ints parses "a,b,c" (at least one).
func (p *shardingParser) ints() ([]int64, error) {
	var out []int64
	for {
		v, err := p.int()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		if !p.eat(",") {
			return out, nil
		}
	}
}

func (p *shardingParser) bracketInts() ([]int64, error) {
	if err := p.expect("["); err != nil {
		return nil, err
	}
	xs, err := p.ints()
	if err != nil {
		return nil, err
	}
	return xs, p.expect("]")
}

func (p *shardingParser) sharding() (*Sharding, error) {
	if err := p.expect("{"); err != nil {
		return nil, err
	}
	p.space()
	if p.i < len(p.s) && p.s[p.i] == '{' {
		t := &Sharding{Type: ShardTuple}
		for {
			e, err := p.sharding()
			if err != nil {
				return nil, err
			}
			t.Elems = append(t.Elems, e)
			if !p.eat(",") {
				break
			}
		}
		return t, p.expect("}")
	}
	var s *Sharding
	switch {
	case p.eat("replicated"):
		s = Replicated()
	case p.eat("manual"):
		s = Manual()
	case p.eat("unknown"):
		s = &Sharding{Type: ShardUnknown}
	case p.eat("maximal"):
		if err := p.expect("device="); err != nil {
			return nil, err
		}
		d, err := p.int()
		if err != nil {
			return nil, err
		}
		s = Maximal(d)
	case p.eat("devices="):
		var err error
		if s, err = p.tiled(); err != nil {
			return nil, err
		}
	default:
		return nil, p.errorf("want replicated, manual, unknown, maximal or devices=")
	}
	// Metadata and other trailing attributes XLA may print are not kept.
	for p.eat("metadata={") {
		depth := 1
		for p.i < len(p.s) && depth > 0 {
			switch p.s[p.i] {
			case '{':
				depth++
			case '}':
				depth--
			}
			p.i++
		}
	}
	return s, p.expect("}")
}

// tiled parses what follows "devices=".
func (p *shardingParser) tiled() (*Sharding, error) {
	tile, err := p.bracketInts()
	if err != nil {
		return nil, err
	}
	var devices []int64
	if p.eat("<=") {
		reshape, err := p.bracketInts()
		if err != nil {
			return nil, err
		}
		perm := make([]int64, len(reshape))
		for i := range perm {
			perm[i] = int64(i)
		}
		if p.eat("T(") {
			if perm, err = p.ints(); err != nil {
				return nil, err
			}
			if err := p.expect(")"); err != nil {
				return nil, err
			}
		}
		if devices, err = iotaDevices(reshape, perm); err != nil {
			return nil, p.errorf("%v", err)
		}
	} else if devices, err = p.ints(); err != nil {
		return nil, err
	}
	replicate := false
	switch {
	case p.eat("last_tile_dim_replicate"):
		replicate = true
	case p.eat("last_tile_dims={"):
		var kinds []string
		for {
			p.space()
			j := p.i
			for j < len(p.s) && p.s[j] >= 'a' && p.s[j] <= 'z' {
				j++
			}
			kinds = append(kinds, p.s[p.i:j])
			p.i = j
			if !p.eat(",") {
				break
			}
		}
		if err := p.expect("}"); err != nil {
			return nil, err
		}
		if len(kinds) != 1 || kinds[0] != "replicated" {
			return nil, p.errorf("last_tile_dims={%s}: only {replicated} subgroups are supported", strings.Join(kinds, ", "))
		}
		replicate = true
	}
	if n := product(tile); n < 0 {
		return nil, p.errorf("tile assignment dims %v: a negative dimension, or more than 2^63-1 devices (%d listed)", tile, len(devices))
	} else if n != int64(len(devices)) {
		return nil, p.errorf("tile assignment dims %v hold %d devices, %d listed", tile, n, len(devices))
	}
	if replicate {
		return PartialTiled(tile, devices)
	}
	if err := checkTile(tile, devices); err != nil {
		return nil, err
	}
	// Parsed as written: a one-device tile keeps its form.
	return &Sharding{Type: ShardTiled, Tile: tile, Devices: devices}, nil
}

// iotaDevices expands an iota tile assignment: iota over reshape, transposed
// by perm, flattened.
func iotaDevices(reshape, perm []int64) ([]int64, error) {
	if len(perm) != len(reshape) {
		return nil, fmt.Errorf("transpose %v does not match reshape dims %v", perm, reshape)
	}
	seen := make([]bool, len(perm))
	for _, q := range perm {
		if q < 0 || int(q) >= len(perm) || seen[q] {
			return nil, fmt.Errorf("transpose %v is not a permutation", perm)
		}
		seen[q] = true
	}
	n := product(reshape)
	if n <= 0 || n > 1<<20 {
		return nil, fmt.Errorf("reshape dims %v: bad device count", reshape)
	}
	// strides of the source iota
	strides := make([]int64, len(reshape))
	st := int64(1)
	for i := len(reshape) - 1; i >= 0; i-- {
		strides[i] = st
		st *= reshape[i]
	}
	outDims := make([]int64, len(perm))
	for i, q := range perm {
		outDims[i] = reshape[q]
	}
	out := make([]int64, 0, n)
	idx := make([]int64, len(outDims))
	for k := int64(0); k < n; k++ {
		v := int64(0)
		for i, q := range perm {
			v += idx[i] * strides[q]
		}
		out = append(out, v)
		for d := len(idx) - 1; d >= 0; d-- {
			idx[d]++
			if idx[d] < outDims[d] {
				break
			}
			idx[d] = 0
		}
	}
	return out, nil
}

package lazy

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Einsum evaluates an Einstein summation over one or two operands as
// torch.einsum does, e.g. "ij,jk->ik", "bij,bkj->bik", "ij->ji", "ij->",
// "...ij->...ji". Labels are the letters a-z and A-Z (spaces are ignored).
// "..." in an operand stands for the axes its labels do not name; the
// operands' ellipsis axes align from the right and broadcast. An axis of
// size 1 broadcasts against the same label's axis in the other operand.
// Without "->" the output is the ellipsis axes, then the labels that appear
// once in alphabetical order (upper case first); an output without "..."
// sums the ellipsis axes. Repeated labels within one operand (diagonals)
// and more than two operands are not supported.
func Einsum(spec string, ts ...*Tensor) *Tensor {
	needList("Einsum", "ts", ts, false)
	defer relabel("Einsum", ts...)()
	if !ts[0].isDry() {
		dryRun(func() { Einsum(spec, dryAll(ts)...) })
	}
	spec = strings.ReplaceAll(spec, " ", "")
	lhs, outSpec, hasOut := strings.Cut(spec, "->")
	ins := strings.Split(lhs, ",")
	shapes := shapesOf(ts)
	fail := func(format string, args ...any) {
		throw("Einsum", shapes, "%q: %s", spec, fmt.Sprintf(format, args...))
	}
	if len(ins) != len(ts) || len(ts) < 1 || len(ts) > 2 {
		fail("needs one or two operands matching the spec")
	}
	// Each operand's labels; "..." becomes labels of its own (not letters)
	// for the axes it covers, the last ones of the longest ellipsis.
	terms := make([][]rune, len(ts))
	ellAt := make([]int, len(ts))
	nEll := 0
	for i, s := range ins {
		terms[i], ellAt[i] = einsumTerm(s, fmt.Sprintf("operand %d", i), fail)
		n := ts[i].Rank() - len(terms[i])
		switch {
		case ellAt[i] < 0 && n != 0:
			fail("operand %d has rank %d, spec gives %d labels", i, ts[i].Rank(), len(terms[i]))
		case n < 0:
			fail("operand %d has rank %d, spec gives %d labels besides its ...", i, ts[i].Rank(), len(terms[i]))
		}
		nEll = max(nEll, n)
	}
	ell := make([]rune, nEll)
	for k := range ell {
		ell[k] = einsumEllipsis + rune(k)
	}
	for i := range terms {
		if ellAt[i] >= 0 {
			terms[i] = spliceRunes(terms[i], ellAt[i], ell[nEll-(ts[i].Rank()-len(terms[i])):])
		}
	}
	size := map[rune]int64{}
	count := map[rune]int{}
	for i, term := range terms {
		seen := map[rune]bool{}
		for j, c := range term {
			if seen[c] {
				fail("repeated label %c in one operand", c)
			}
			seen[c] = true
			d := ts[i].Dims()[j]
			old, ok := size[c]
			if ok && old != d && old != 1 && d != 1 {
				fail("%s has sizes %d and %d, which do not broadcast", einsumName(c), old, d)
			}
			if !ok || old == 1 {
				size[c] = d
			}
			count[c]++
		}
	}
	var out []rune
	if hasOut {
		var at int
		if out, at = einsumTerm(outSpec, "the output", fail); at >= 0 {
			out = spliceRunes(out, at, ell)
		}
	} else {
		var once []rune
		for c, n := range count {
			if n == 1 && c < einsumEllipsis {
				once = append(once, c)
			}
		}
		sortRunes(once)
		out = append(append([]rune(nil), ell...), once...)
	}
	inOut := map[rune]bool{}
	for _, c := range out {
		if _, ok := size[c]; !ok {
			fail("output label %c not in any operand", c)
		}
		if inOut[c] {
			fail("repeated output label %c", c)
		}
		inOut[c] = true
	}
	// An axis of size 1 that broadcasts against the other operand's: that
	// operand's values do not vary along it, so it goes (the label is then
	// the other operand's alone).
	ops := append([]*Tensor(nil), ts...)
	for i, term := range terms {
		var kept []rune
		var dims []int64
		for j, c := range term {
			if d := ts[i].Dims()[j]; d != 1 || size[c] == 1 {
				kept, dims = append(kept, c), append(dims, d)
			} else {
				count[c]--
			}
		}
		if len(kept) < len(term) {
			ops[i], terms[i] = ops[i].Reshape(dims...), kept
		}
	}
	// Sum out labels that appear in one operand only and not in the output.
	labels := make([][]rune, len(ts))
	for i, term := range terms {
		var axes []int
		var kept []rune
		for j, c := range term {
			if !inOut[c] && count[c] == 1 {
				axes = append(axes, j)
			} else {
				kept = append(kept, c)
			}
		}
		if len(axes) > 0 {
			ops[i] = inAcc(ops[i], func(x *Tensor) *Tensor { return x.reduce(opReduceSum, false, axes) })
		}
		labels[i] = kept
	}
	var res *Tensor
	var resLabels []rune
	if len(ops) == 1 {
		res, resLabels = ops[0], labels[0]
	} else {
		a, b := labels[0], labels[1]
		var d dotDims
		var batch, aFree, bFree []rune
		for j, c := range a {
			k := indexRune(b, c)
			switch {
			case k >= 0 && inOut[c]:
				d.lb, d.rb = append(d.lb, int64(j)), append(d.rb, int64(k))
				batch = append(batch, c)
			case k >= 0:
				d.lc, d.rc = append(d.lc, int64(j)), append(d.rc, int64(k))
			default:
				aFree = append(aFree, c)
			}
		}
		for _, c := range b {
			if indexRune(a, c) < 0 {
				bFree = append(bFree, c)
			}
		}
		res = dotGeneral(ops[0], ops[1], d)
		resLabels = append(append(batch, aFree...), bFree...)
	}
	if len(resLabels) != len(out) {
		fail("output labels %q do not match the result %q", string(out), string(resLabels))
	}
	perm := make([]int, len(out))
	for i, c := range out {
		perm[i] = indexRune(resLabels, c)
	}
	return res.Permute(perm...)
}

// einsumEllipsis is the first of the labels Einsum gives the axes "..."
// covers (Unicode's private use area: no letter a spec may use).
const einsumEllipsis rune = 0xE000

// einsumTerm parses one operand's (or the output's) labels: letters a-z
// and A-Z, and at most one "...", whose place among the labels it returns
// (-1: none).
func einsumTerm(s, what string, fail func(string, ...any)) ([]rune, int) {
	var labels []rune
	at := -1
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case strings.HasPrefix(s[i:], "..."):
			if at >= 0 {
				fail("%s has more than one ...", what)
			}
			at, i = len(labels), i+3
			continue
		case r == '.':
			fail("%s has a '.' that is not part of ...", what)
		case !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z'):
			fail("%s: label %q is not a letter a-z or A-Z (as torch.einsum)", what, r)
		}
		labels = append(labels, r)
		i += n
	}
	return labels, at
}

// einsumName names a label in a message.
func einsumName(c rune) string {
	if c >= einsumEllipsis {
		return fmt.Sprintf("axis %d of ...", c-einsumEllipsis)
	}
	return "label " + string(c)
}

func spliceRunes(rs []rune, at int, ins []rune) []rune {
	return append(append(append([]rune(nil), rs[:at]...), ins...), rs[at:]...)
}

func indexRune(rs []rune, c rune) int {
	for i, r := range rs {
		if r == c {
			return i
		}
	}
	return -1
}

func sortRunes(rs []rune) {
	for i := 1; i < len(rs); i++ {
		for j := i; j > 0 && rs[j] < rs[j-1]; j-- {
			rs[j], rs[j-1] = rs[j-1], rs[j]
		}
	}
}

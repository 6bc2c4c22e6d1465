package refsuite

import (
	"fmt"
	"strings"
)

// maxLCSCells bounds the quadratic part of Diff: above it the changed
// middle of two texts is shown as one removed and one added block.
const maxLCSCells = 4 << 20

// diffContext is the number of unchanged lines shown around a change.
const diffContext = 3

// Diff returns a unified diff (---/+++ headers named a and b, @@ hunks
// with three lines of context) from text x to text y, or "" when they are
// equal. Common leading and trailing lines are trimmed before a
// longest-common-subsequence match of the rest.
func Diff(a, b, x, y string) string {
	if x == y {
		return ""
	}
	xl, yl := strings.Split(x, "\n"), strings.Split(y, "\n")
	pre := 0
	for pre < len(xl) && pre < len(yl) && xl[pre] == yl[pre] {
		pre++
	}
	suf := 0
	for suf < len(xl)-pre && suf < len(yl)-pre && xl[len(xl)-1-suf] == yl[len(yl)-1-suf] {
		suf++
	}
	mx, my := xl[pre:len(xl)-suf], yl[pre:len(yl)-suf]
	// ops: ' ' keep, '-' from x, '+' from y, over the whole texts.
	type op struct {
		kind byte
		text string
		xi   int // line numbers (0-based) the op sits at
		yi   int
	}
	var ops []op
	for i := 0; i < pre; i++ {
		ops = append(ops, op{' ', xl[i], i, i})
	}
	if len(mx)*len(my) <= maxLCSCells {
		n, m := len(mx), len(my)
		lcs := make([][]int32, n+1)
		for i := range lcs {
			lcs[i] = make([]int32, m+1)
		}
		for i := n - 1; i >= 0; i-- {
			for j := m - 1; j >= 0; j-- {
				if mx[i] == my[j] {
					lcs[i][j] = lcs[i+1][j+1] + 1
				} else {
					lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
				}
			}
		}
		i, j := 0, 0
		for i < n || j < m {
			switch {
			case i < n && j < m && mx[i] == my[j]:
				ops = append(ops, op{' ', mx[i], pre + i, pre + j})
				i++
				j++
			case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
				ops = append(ops, op{'-', mx[i], pre + i, pre + j})
				i++
			default:
				ops = append(ops, op{'+', my[j], pre + i, pre + j})
				j++
			}
		}
	} else {
		for i, l := range mx {
			ops = append(ops, op{'-', l, pre + i, pre})
		}
		for j, l := range my {
			ops = append(ops, op{'+', l, pre + len(mx), pre + j})
		}
	}
	for i := 0; i < suf; i++ {
		ops = append(ops, op{' ', xl[len(xl)-suf+i], len(xl) - suf + i, len(yl) - suf + i})
	}
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", a, b)
	for k := 0; k < len(ops); {
		if ops[k].kind == ' ' {
			k++
			continue
		}
		// A hunk: from diffContext lines before this change to diffContext
		// lines after the last change closer than 2*diffContext.
		start := max(0, k-diffContext)
		end := k
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*diffContext {
				end = min(len(ops), end+diffContext)
				break
			}
			end = run
		}
		nx, ny := 0, 0
		for _, o := range ops[start:end] {
			if o.kind != '+' {
				nx++
			}
			if o.kind != '-' {
				ny++
			}
		}
		fmt.Fprintf(&out, "@@ -%d,%d +%d,%d @@\n", ops[start].xi+1, nx, ops[start].yi+1, ny)
		for _, o := range ops[start:end] {
			out.WriteByte(o.kind)
			out.WriteString(o.text)
			out.WriteByte('\n')
		}
		k = end
	}
	return out.String()
}

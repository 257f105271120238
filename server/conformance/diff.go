package main

import "fmt"

// diffContext is how many unchanged lines a diff keeps around a change.
const diffContext = 3

// diffLines is a line diff of two traces from their longest common
// subsequence: "  " both, "- " only in a (RabbitMQ), "+ " only in b
// (Warren); long unchanged runs are elided. Traces are at most a few
// hundred lines, so the quadratic table is small.
func diffLines(a, b []string) []string {
	n, m := len(a), len(b)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var ops []string
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			ops = append(ops, "  "+a[i])
			i++
			j++
		case j < m && (i == n || lcs[i][j+1] >= lcs[i+1][j]):
			ops = append(ops, "+ "+b[j])
			j++
		default:
			ops = append(ops, "- "+a[i])
			i++
		}
	}
	return elide(ops)
}

// elide keeps changed lines and diffContext unchanged lines around each.
func elide(ops []string) []string {
	keep := make([]bool, len(ops))
	for k, op := range ops {
		if op[0] != ' ' {
			for d := -diffContext; d <= diffContext; d++ {
				if k+d >= 0 && k+d < len(ops) {
					keep[k+d] = true
				}
			}
		}
	}
	var out []string
	skipped := 0
	for k, op := range ops {
		if keep[k] {
			if skipped > 0 {
				out = append(out, fmt.Sprintf("  ... (%d same)", skipped))
				skipped = 0
			}
			out = append(out, op)
			continue
		}
		skipped++
	}
	if skipped > 0 {
		out = append(out, fmt.Sprintf("  ... (%d same)", skipped))
	}
	return out
}

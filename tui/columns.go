package tui

// This file chooses the columns of a table: the ones the configuration
// file's [columns.VIEW] shows, in its order, less those that rank lowest
// when the screen is too narrow for all of them; fitColumns then sizes
// what is left.

import "strings"

// specName is the column's name in the configuration file.
func specName(s colSpec) string {
	if s.name != "" {
		return s.name
	}
	return strings.ToLower(s.title)
}

// layoutColumns lays out the columns of specs that names shows, in its
// order (every column, in the specs' order, when names is empty), dropping
// the lowest-ranked ones while their minimums do not fit in width. Each
// column keeps the index of its cell among the specs.
func layoutColumns(specs []colSpec, names []string, width int) []column {
	var idx []int
	if len(names) == 0 {
		for i := range specs {
			idx = append(idx, i)
		}
	} else {
		for _, n := range names {
			for i, s := range specs {
				if specName(s) == n {
					idx = append(idx, i)
				}
			}
		}
	}
	need := func() int {
		n := colGap * max(len(idx)-1, 0)
		for _, i := range idx {
			n += specs[i].min
		}
		return n
	}
	for len(idx) > 1 && need() > width {
		low := -1
		for j, i := range idx {
			if specs[i].keep > 0 && (low < 0 || specs[i].keep < specs[idx[low]].keep) {
				low = j
			}
		}
		if low < 0 {
			break
		}
		idx = append(idx[:low:low], idx[low+1:]...)
	}
	sub := make([]colSpec, len(idx))
	for j, i := range idx {
		sub[j] = specs[i]
	}
	cols := fitColumns(sub, width)
	for j := range cols {
		cols[j].cell = idx[j]
	}
	return cols
}

// titleCells are the columns' titles as a row's cells.
func titleCells(cols []column) []string {
	n := 0
	for _, c := range cols {
		n = max(n, c.cell+1)
	}
	out := make([]string, n)
	for _, c := range cols {
		out[c.cell] = c.title
	}
	return out
}

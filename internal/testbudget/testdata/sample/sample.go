// Package sample is what the counter's own test counts.
package sample

// Model is the root type.
type Model struct {
	n    int
	Open int
	peer other
}

type other struct{ n int }

func (m Model) step() Model { m.n++; return m }

// Step is exported.
func (m Model) Step() Model { return m.step() }

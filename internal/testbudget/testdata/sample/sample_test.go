package sample

import "testing"

func TestSample(t *testing.T) {
	m := Model{}
	m = m.step().step() // two calls
	_ = m.n + m.Open    // one read, the exported one not counted
	p := &m
	p.n = 2      // one, through a pointer
	_ = m.peer.n // one: peer; n is other's
	_ = m.Step() // exported
	var o other
	_ = o.n // another type's
}

package tui

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// TestDialogRateKeys: + and - step through the ladder, digits type a rate
// (the first after a step starts a new number), backspace takes the last
// digit away; the action is rebuilt at each rate; a dialog whose action
// takes no rate ignores them.
func TestDialogRateKeys(t *testing.T) {
	var at []int
	var rerate func(int) action
	rerate = func(n int) action {
		at = append(at, n)
		return action{rate: n, rerate: rerate}
	}
	d := confirmDialog{action: action{rerate: rerate}}
	press := func(k tea.KeyMsg, want int) {
		t.Helper()
		var ok bool
		if d, ok = d.rated(k); !ok || d.action.rate != want {
			t.Fatalf("after %q: rate %d (taken %v), want %d", k.String(), d.action.rate, ok, want)
		}
	}
	runes := func(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }
	press(runes("+"), 10)
	press(runes("+"), 20)
	press(runes("-"), 10)
	press(runes("-"), 0)
	press(runes("-"), 0)
	press(runes("2"), 2)
	press(runes("5"), 25)
	press(tea.KeyMsg{Type: tea.KeyBackspace}, 2)
	press(runes("+"), 10)
	press(runes("7"), 7)
	for range 10 {
		d, _ = d.rated(runes("9"))
	}
	if d.action.rate > maxDialogRate {
		t.Errorf("typed rate %d above %d", d.action.rate, maxDialogRate)
	}
	if _, ok := (confirmDialog{action: action{}}).rated(runes("+")); ok {
		t.Error("a dialog without a rate took +")
	}
	if _, ok := d.rated(runes("x")); ok {
		t.Error("x changed the rate")
	}
}

func TestParseRateArgs(t *testing.T) {
	for in, want := range map[string]int{"--rate 50": 50, "--rate=200": 200, "--rate 0": 0} {
		if n, err := parseRateArgs([]string{in}); err != nil || n != want {
			t.Errorf("%q: %d %v", in, n, err)
		}
	}
	for _, in := range []string{"--rate", "--rate -1", "--rate x", "--fast", "--rate 99999999"} {
		if _, err := parseRateArgs([]string{in}); err == nil {
			t.Errorf("%q is not refused", in)
		}
	}
}

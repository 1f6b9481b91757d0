package tui

// This file owns the rate of the Jobs view's bulk requeue: the dialog
// takes one (+ and - step through a ladder, digits type one, 0 is no
// limit) and :requeue --rate N opens the dialog with it. The program's
// executor paces the script calls as the command line's --rate does
// (reaper.JobsPlan.Rate).

import (
	"fmt"
	"strconv"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// rateLadder are the rates + and - step through, in jobs a second; 0 is
// no limit.
var rateLadder = [...]int{0, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000}

// maxDialogRate bounds a typed rate.
const maxDialogRate = 1_000_000

// rateStep is the next rate of the ladder up (or down) from rate.
func rateStep(rate int, up bool) int {
	if up {
		for _, r := range rateLadder {
			if r > rate {
				return r
			}
		}
		return rate
	}
	for i := len(rateLadder) - 1; i >= 0; i-- {
		if rateLadder[i] < rate {
			return rateLadder[i]
		}
	}
	return 0
}

// rateText is a rate in words.
func rateText(rate int) string {
	if rate <= 0 {
		return "no limit"
	}
	return fmt.Sprintf("at most %d jobs/s", rate)
}

// rateLine is the dialog's line of a rated action.
func (d confirmDialog) rateLine() string {
	return "rate: " + rateText(d.action.rate) + "   +/-/digits: change"
}

// rated is the dialog after a key that changes the rate of an action that
// takes one; ok is false for any other key. A digit appends to the rate
// typed since the last +/- (the first digit starts a new number),
// backspace takes the last one away.
func (d confirmDialog) rated(msg tea.KeyMsg) (confirmDialog, bool) {
	if d.action.rerate == nil || d.blocked != "" {
		return d, false
	}
	rate := d.action.rate
	switch {
	case msg.Type == tea.KeyBackspace:
		if !d.rateTyped {
			return d, false
		}
		rate /= 10
	case msg.Type != tea.KeyRunes || len(msg.Runes) != 1 || msg.Paste:
		return d, false
	case msg.Runes[0] == '+' || msg.Runes[0] == '=':
		rate, d.rateTyped = rateStep(rate, true), false
	case msg.Runes[0] == '-':
		rate, d.rateTyped = rateStep(rate, false), false
	case msg.Runes[0] >= '0' && msg.Runes[0] <= '9':
		digit := int(msg.Runes[0] - '0')
		if !d.rateTyped {
			rate = 0
		}
		if next := rate*10 + digit; next <= maxDialogRate {
			rate = next
		}
		d.rateTyped = true
	default:
		return d, false
	}
	d.action = d.action.rerate(rate)
	return d, true
}

// parseRateArgs reads :requeue's arguments: --rate N or --rate=N.
func parseRateArgs(args []string) (int, error) {
	text := strings.Join(args, " ")
	val, ok := strings.CutPrefix(text, "--rate=")
	if !ok {
		val, ok = strings.CutPrefix(text, "--rate ")
	}
	if !ok {
		return 0, fmt.Errorf(":requeue takes --rate N (jobs a second), not %q", text)
	}
	n, err := strconv.Atoi(strings.TrimSpace(val))
	if err != nil || n < 0 || n > maxDialogRate {
		return 0, fmt.Errorf(":requeue --rate: want a whole number of jobs a second from 0 (no limit) to %d, not %q", maxDialogRate, strings.TrimSpace(val))
	}
	return n, nil
}

// requeueWithRate is :requeue --rate N: in the Jobs view, the plan of R
// with that rate in its dialog.
func (m Model) requeueWithRate(args []string) (Model, tea.Cmd) {
	rate, err := parseRateArgs(args)
	if err != nil {
		return m.setStatus(oneLine(err.Error()), true)
	}
	a, ok := m.jobsAsker()
	if !ok || !m.setsFocused() {
		return m.setStatus(":requeue --rate paces the Jobs view's requeue: open it with :jobs SET", true)
	}
	if why := a.bulkRequeueWhy(); why != "" {
		return m.setStatus(why, true)
	}
	return m.openSetsActionAt(actionJobsRequeue, rate)
}

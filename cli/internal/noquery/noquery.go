// Package noquery keeps the terminal from being asked questions while the
// program's packages initialise.
//
// bubbletea v1 asks, in an init function, for the terminal's background
// colour (lipgloss.HasDarkBackground on the default renderer: termenv
// writes OSC 11 and a cursor position request to stdout and waits up to 5 s
// for the answers). Every command would pay for it, colour or not, and on a
// terminal that never answers every start would take 5 s. termenv sends no
// query when TERM is "dumb" (it falls back to COLORFGBG, else a dark
// background), so this package sets TERM=dumb in its own initialisation,
// which runs before bubbletea's, and Restore puts the real TERM back.
//
// Why it runs first: Go initialises a package after the packages it
// imports and, among those ready, the one first by import path. This
// package imports only syscall. termenv, which bubbletea needs through
// lipgloss, imports golang.org/x/sys/unix, which imports syscall too and
// sorts after this package's path; so this package is initialised before
// golang.org/x/sys/unix, and therefore before termenv, lipgloss and
// bubbletea. TestNothingWaitsOnTheTerminal in package cli checks the
// outcome on a pseudo-terminal that never answers.
package noquery

import "syscall"

// term is TERM as the process started with it. It is written once, during
// initialisation, and only read afterwards.
var term, hadTerm = syscall.Getenv("TERM")

func init() {
	_ = syscall.Setenv("TERM", "dumb")
}

// Restore puts back the TERM the process started with. The program calls
// it first thing, once every package is initialised.
func Restore() {
	if hadTerm {
		_ = syscall.Setenv("TERM", term)
		return
	}
	_ = syscall.Unsetenv("TERM")
}

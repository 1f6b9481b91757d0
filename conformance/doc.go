// Package conformance holds the tests that check workq-tui against the real
// gocraft/work v0.5.1: the state is made by gocraft/work itself (see
// package gcstate), then workq-tui reads or repairs it. It is a separate
// module so that gocraft/work never enters the main go.mod.
package conformance

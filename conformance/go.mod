module github.com/workq-tui/workq-tui/conformance

go 1.26.0

replace github.com/workq-tui/workq-tui => ../

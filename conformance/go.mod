module github.com/workq-tui/workq-tui/conformance

go 1.26.0

replace github.com/workq-tui/workq-tui => ../

require (
	github.com/gocraft/work v0.5.1
	github.com/gomodule/redigo v1.9.2
	github.com/workq-tui/workq-tui v0.0.0-00010101000000-000000000000
)

require github.com/robfig/cron v1.2.0 // indirect

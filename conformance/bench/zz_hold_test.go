//go:build bench

package bench_test

import (
	"os"
	"testing"
	"time"

	"github.com/workq-tui/workq-tui/internal/redistest"
)

func TestHoldFind(t *testing.T) {
	srv := redistest.Start(t, "--enable-debug-command", "local")
	e := &env{t: t, srv: srv, sz: fullSizes, tb: &table{}}
	c := e.dial()
	sz := e.incidentSizes()
	w := loadIncident(e, c, sz)
	loadFindKeys(e, c, sz)
	if os.Getenv("HOLD_NOISE") != "" {
		c.Do("DEBUG", "POPULATE", 1000000, "noise")
	}
	os.WriteFile("/tmp/hold/addr", []byte(srv.Addr()+" "+w.findID), 0o644)
	for {
		if _, err := os.Stat("/tmp/hold/done"); err == nil {
			return
		}
		time.Sleep(time.Second)
	}
}

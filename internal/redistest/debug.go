package redistest

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// DebugArgs are the extra arguments of Start that let local clients send
// DEBUG (redis-server 7 refuses it by default), for a test that makes a
// Redis slow with DEBUG SLEEP.
func DebugArgs() []string { return []string{"--enable-debug-command", "local"} }

// Stall keeps the server busy: DEBUG SLEEP of each, again and again on a
// connection of its own, so every other client waits; a client gets an
// answer only in the short gaps between two sleeps. The server must have
// been started with DebugArgs. The returned stop ends the loop after the
// current sleep; it also runs when the test ends.
func (s *Server) Stall(t testing.TB, each time.Duration) (stop func()) {
	t.Helper()
	c := s.Dial()
	if _, err := c.Do("DEBUG", "SLEEP", "0"); err != nil {
		c.Close()
		t.Fatalf("DEBUG SLEEP on %s (start the server with redistest.DebugArgs()): %v", s.Addr(), err)
	}
	secs := fmt.Sprintf("%.3f", each.Seconds())
	done := make(chan struct{})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		defer c.Close()
		for {
			select {
			case <-done:
				return
			default:
			}
			if _, err := c.Do("DEBUG", "SLEEP", secs); err != nil {
				return
			}
		}
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			close(done)
			<-ended
		})
	}
	t.Cleanup(stop)
	return stop
}

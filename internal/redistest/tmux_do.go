package redistest

// Do runs a tmux command on the session's server (set-option,
// show-buffer...) and returns what it printed; an error fails the test.
func (s *Tmux) Do(args ...string) string {
	s.t.Helper()
	return s.tmux(args...)
}

// Socket is the path of the session's tmux server socket (tmux -S).
func (s *Tmux) Socket() string { return s.socket }

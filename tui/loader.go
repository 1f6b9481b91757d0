package tui

// loader is the state of a view's own read (an explanation, a page of the
// history, the timeline...): the sequence number of the read asked for
// last, whether it runs, whether one has succeeded, and the last error.
// A result is stale when it answers another view (its id) or an older
// read: the view drops it. Views embed it.
type loader struct {
	seq     int
	loading bool
	loaded  bool
	err     error
}

// start asks for a read: the command carries l.seq.
func (l loader) start() loader {
	l.seq++
	l.loading = true
	return l
}

// take is the result of the read (view, seq) of the view id, with its
// error: ok is false for a stale result, which changes nothing. An error
// keeps what the last good read showed.
func (l loader) take(id, view, seq int, err error) (loader, bool) {
	if view != id || seq != l.seq {
		return l, false
	}
	l.loading, l.err = false, err
	if err == nil {
		l.loaded = true
	}
	return l, true
}

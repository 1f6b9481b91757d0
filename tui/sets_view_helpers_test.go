package tui

// setsView is the Jobs view, for the tests that look into it; ok is false
// when the screen has none.
func (m Model) setsView() (setsView, bool) {
	i := m.setsTab()
	if i < 0 {
		return setsView{}, false
	}
	v, ok := m.tabs[i].(setsView)
	return v, ok
}

package tui

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// table is the rows of a list view (pools, job types, orphans, workers):
// its items, the ones its filter matches, a cursor over those, and the
// key of the item under the cursor, which keeps the cursor on the same
// item across new items and filters. The views embed it and draw its
// rows; match and key are the view's (what the filter searches, what
// names an item).
type table[T any] struct {
	items  []T
	rows   []int // indices into items that the filter matches
	filter string
	list   listState
	// selKey is the key of the item under the cursor.
	selKey string
	height int // rows shown
}

// refilter recomputes the rows (match reports whether an item passes the
// lower-case filter f, which is never empty) and puts the cursor back on
// the selected key; when that item is gone the cursor keeps its position.
func (t table[T]) refilter(match func(it *T, f string) bool, key func(it *T) string) table[T] {
	rows := make([]int, 0, len(t.items))
	f := strings.ToLower(t.filter)
	for i := range t.items {
		if f == "" || match(&t.items[i], f) {
			rows = append(rows, i)
		}
	}
	t.rows = rows
	if t.selKey != "" {
		for i, r := range rows {
			if key(&t.items[r]) == t.selKey {
				t.list.cursor = i
				break
			}
		}
	}
	t.list = t.list.clamp(len(rows), t.height)
	t.selKey = ""
	if t.list.cursor >= 0 && t.list.cursor < len(rows) {
		t.selKey = key(&t.items[rows[t.list.cursor]])
	}
	return t
}

// resize shows height rows, the cursor kept in them.
func (t table[T]) resize(height int) table[T] {
	t.height = height
	t.list = t.list.clamp(len(t.rows), t.height)
	return t
}

// current is the item under the cursor.
func (t table[T]) current() (T, bool) {
	if t.list.cursor < 0 || t.list.cursor >= len(t.rows) {
		var zero T
		return zero, false
	}
	return t.items[t.rows[t.list.cursor]], true
}

// navigate moves the cursor on a navigation key, remembering the key of
// the item it lands on; ok is false for any other key.
func (t table[T]) navigate(msg tea.KeyMsg, k keyMap, key func(it *T) string) (table[T], bool) {
	l, ok := t.list.navigate(msg, k, len(t.rows), t.height)
	if !ok {
		return t, false
	}
	t.list = l
	if l.cursor >= 0 && l.cursor < len(t.rows) {
		t.selKey = key(&t.items[t.rows[l.cursor]])
	}
	return t, true
}

// selectKey puts the cursor on the item of key k; the filter is cleared
// only when it hides it. ok is false when there is no such item.
func (t table[T]) selectKey(k string, match func(it *T, f string) bool, key func(it *T) string) (table[T], bool) {
	for _, filter := range []string{t.filter, ""} {
		t.filter, t.selKey = filter, k
		if t = t.refilter(match, key); t.selKey == k {
			return t, true
		}
	}
	return t, false
}

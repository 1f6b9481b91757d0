package tui

// This file owns what the Jobs view's '/' and :where take: a query of the
// command line's language (model.ParseQuery), where a plain word, as in
// every other view's filter, matches part of the job name. The set reads
// filter through it (redisq.SetFilter.Query).

import (
	"fmt"
	"sort"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/reaper"
)

// parseSetsQuery reads the Jobs view's filter. A word that is not a term
// (no KEY:VALUE, KEY~RE, KEY>=N or KEY<=N) is a part of the job name: it
// becomes the glob job:*WORD*. Times are read against now (Redis's
// clock), clock times of today in UTC, the zone the screen shows times in.
// A bad query is one line naming the term; nothing is read.
func parseSetsQuery(text string, now time.Time) (*model.Query, error) {
	words, err := model.SplitQuery(text)
	if err != nil {
		return nil, err
	}
	var terms, parts []string
	for _, w := range words {
		if w.Term {
			terms = append(terms, w.Src)
		} else if p := strings.ToLower(w.Plain); p != "" {
			parts = append(parts, p)
		}
	}
	q, err := model.ParseQuery(strings.Join(terms, " "), model.QueryClock{Now: now, Zone: time.UTC})
	if err != nil {
		return nil, err
	}
	q.NameParts = parts
	q.Text = strings.TrimSpace(text)
	return q, nil
}

// jobQuery is the filter of every job of one name: job:NAME, quoted when
// the name needs it.
func jobQuery(name string) string {
	if name == "" {
		return ""
	}
	return "job:" + model.QuoteQueryValue(name)
}

// applyQuery filters the view by text and reads its first page. A bad
// query says why in the status line and keeps the filter that was
// applied: nothing is read.
func (v setsView) applyQuery(text string) (setsView, tea.Cmd) {
	text, err := model.ExpandSaved(strings.TrimSpace(text), v.queries.saved, v.queries.from)
	var q *model.Query
	if err == nil {
		q, err = parseSetsQuery(text, v.queryNow())
	}
	if err != nil {
		v.typed = ""
		return v, statusCmd(oneLine(err.Error()), true)
	}
	if q.Empty() {
		q, text = nil, ""
	}
	v.jobFilter, v.query, v.typed = text, q, ""
	v.marked, v.markAll = nil, false
	return v.load(0, false)
}

// queryNow is the time the view's queries are read against: Redis's
// clock of the last snapshot, else the screen's (Model.queryNow).
func (v setsView) queryNow() time.Time {
	if !v.redisNow.IsZero() {
		return v.redisNow
	}
	return v.pace.now()
}

// savedQueryNames are the names of the configuration file's saved
// queries that can be typed as they are, in order.
func (m Model) savedQueryNames() []string {
	var out []string
	for n := range m.opts.Queries {
		if typeable(n) && model.SavedQueryName(n) {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// queryNow is the time a query's ages and clock times are read against:
// Redis's clock of the last snapshot, else the screen's.
func (m Model) queryNow() time.Time {
	if m.snap != nil && !m.snap.RedisTime.IsZero() {
		return m.snap.RedisTime
	}
	return m.opts.Now()
}

// markAllText is the title line's word for A's marks.
func (v setsView) markAllText() string {
	return fmt.Sprintf("all %d matching marked", v.total)
}

// queryTarget is every member of the set the query matches, for the bulk
// plan the command line's --where makes.
func (v setsView) queryTarget() reaper.JobsTarget {
	t := reaper.JobsTarget{Set: v.set, All: true}
	if !v.query.Empty() {
		t.Query = v.query
	}
	return t
}

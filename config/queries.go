package config

// This file owns [queries]: saved queries of the query language, by name,
// for --where @NAME and the screen's :where @NAME.

import (
	"time"

	"github.com/workq-tui/workq-tui/model"
)

// queries checks the [queries] table: each name a word of letters,
// digits, '_' and '-' (so @NAME needs no quoting anywhere), each value a
// query that parses (times against now, as the command line reads them).
func (p *parser) queries(v any) map[string]string {
	tbl, ok := v.(map[string]any)
	if !ok {
		p.add([]string{"queries"}, "queries must be a table of NAME = 'QUERY'")
		return nil
	}
	out := map[string]string{}
	clock := model.QueryClock{Now: time.Now(), Zone: time.UTC}
	for _, name := range sortedKeys(tbl) {
		path := []string{"queries", name}
		if !model.SavedQueryName(name) {
			p.add(path, "queries.%q: a name is letters, digits, '_' and '-'", name)
			continue
		}
		text, err := str(tbl[name])
		if err != nil {
			p.add(path, "queries.%s: %v", name, err)
			continue
		}
		if _, err := model.ParseQuery(text, clock); err != nil {
			p.add(path, "queries.%s: %v", name, err)
			continue
		}
		out[name] = text
	}
	return out
}

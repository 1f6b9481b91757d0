package exporter_test

import (
	"log/slog"
	"testing"

	"github.com/prometheus/common/model"

	"github.com/prometheus/prometheus/model/rulefmt"
	"github.com/prometheus/prometheus/promql/parser"
)

// docs/alerts.yml is what `promtool check rules` checks: the YAML, every
// expression (PromQL), every duration, label and annotation template.
func TestAlertRules(t *testing.T) {
	groups, errs := rulefmt.ParseFile("../../docs/alerts.yml", false, model.UTF8Validation, parser.NewParser(parser.Options{}), slog.New(slog.DiscardHandler))
	for _, err := range errs {
		t.Error(err)
	}
	if groups == nil {
		t.Fatal("no rule groups")
	}
	want := map[string]bool{"WorkqExporterDown": false, "WorkqTargetDown": false, "WorkqDeadPool": false, "WorkqLockDrift": false,
		"WorkqOrphanedJobs": false, "WorkqQueueLatencyHigh": false, "WorkqDeadSetGrowing": false, "WorkqLongRunningJobs": false}
	for _, g := range groups.Groups {
		for _, r := range g.Rules {
			if _, ok := want[r.Alert]; ok {
				want[r.Alert] = true
			}
		}
	}
	for name, found := range want {
		if !found {
			t.Errorf("no rule %s", name)
		}
	}
}

// Package exportertest holds what the exporter's tests share: a scrape
// parsed with the Prometheus text parser, the series a snapshot should give,
// and the commands that grew between two counts of Redis's calls.
package exportertest

import (
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	pmodel "github.com/prometheus/common/model"

	"github.com/workq-tui/workq-tui/model"
)

// Series maps a series, written name{label="value",...} with the labels in
// name order, to its value.
type Series map[string]float64

// Key writes a series' name and labels as Series keys them; labels are
// name, value pairs.
func Key(name string, labels ...string) string {
	type kv struct{ k, v string }
	var ls []kv
	for i := 0; i+1 < len(labels); i += 2 {
		ls = append(ls, kv{labels[i], labels[i+1]})
	}
	sort.Slice(ls, func(i, j int) bool { return ls[i].k < ls[j].k })
	parts := make([]string, len(ls))
	for i, l := range ls {
		parts[i] = l.k + "=" + strconv.Quote(l.v)
	}
	return name + "{" + strings.Join(parts, ",") + "}"
}

// Parse reads the text exposition format.
func Parse(r io.Reader) (Series, error) {
	p := expfmt.NewTextParser(pmodel.UTF8Validation)
	fams, err := p.TextToMetricFamilies(r)
	if err != nil {
		return nil, err
	}
	out := Series{}
	for name, f := range fams {
		for _, m := range f.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetName(), l.GetValue())
			}
			var v float64
			switch f.GetType() {
			case dto.MetricType_COUNTER:
				v = m.GetCounter().GetValue()
			case dto.MetricType_GAUGE:
				v = m.GetGauge().GetValue()
			default:
				v = m.GetUntyped().GetValue()
			}
			out[Key(name, labels...)] = v
		}
	}
	return out, nil
}

// Scrape gets url and parses it, failing the test on any error.
func Scrape(t testing.TB, url string) Series {
	t.Helper()
	s, err := TryScrape(url)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TryScrape gets url and parses it.
func TryScrape(url string) (Series, error) {
	resp, err := http.Get(url)
	if err != nil {
		return nil, fmt.Errorf("scrape %s: %w", url, err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return nil, fmt.Errorf("scrape %s: %s: %s", url, resp.Status, b)
	}
	return Parse(resp.Body)
}

// Only keeps the series of the given metric names.
func (s Series) Only(names ...string) Series {
	out := Series{}
	for k, v := range s {
		for _, n := range names {
			if strings.HasPrefix(k, n+"{") {
				out[k] = v
			}
		}
	}
	return out
}

// Target keeps the series whose target label is name.
func (s Series) Target(name string) Series {
	out := Series{}
	for k, v := range s {
		if strings.Contains(k, "target="+strconv.Quote(name)) {
			out[k] = v
		}
	}
	return out
}

// SnapshotNames are the metrics Want derives from a snapshot.
func SnapshotNames() []string {
	return []string{"workq_pools", "workq_pool_heartbeat_age_seconds", "workq_pool_in_progress",
		"workq_pools_truncated", "workq_job_queued", "workq_job_latency_seconds", "workq_job_in_progress",
		"workq_job_lock", "workq_job_lock_info_held", "workq_job_max_concurrency", "workq_job_paused",
		"workq_job_drift", "workq_set_jobs", "workq_busy_workers", "workq_long_running_jobs"}
}

// Want is what the exporter should give for a snapshot of one target, for
// the metrics SnapshotNames lists, with every pool (the snapshot has fewer
// than the cap) and no control characters in names. Long-running jobs are
// counted past the snapshot's LongAfter (model.DefaultLongAfter when not
// positive), as its long_running findings are.
func Want(target string, snap *model.Snapshot) Series {
	ns := snap.Namespace
	out := Series{}
	k := func(name string, labels ...string) string {
		return Key(name, append([]string{"target", target, "namespace", ns}, labels...)...)
	}
	out[k("workq_pools", "status", "alive")] = 0
	out[k("workq_pools", "status", "late")] = 0
	out[k("workq_pools", "status", "dead")] = 0
	out[k("workq_pools_truncated")] = 0
	out[k("workq_set_jobs", "set", "retry")] = float64(snap.Sets.Retry)
	out[k("workq_set_jobs", "set", "scheduled")] = float64(snap.Sets.Scheduled)
	out[k("workq_set_jobs", "set", "dead")] = float64(snap.Sets.Dead)
	longAfter := snap.LongAfter
	if longAfter <= 0 {
		longAfter = model.DefaultLongAfter
	}
	out[k("workq_busy_workers")] = float64(len(model.BusyWorkers(snap.Workers)))
	out[k("workq_long_running_jobs")] = 0
	for _, w := range snap.Workers {
		if w.LongRunning(longAfter) {
			out[k("workq_long_running_jobs")]++
		}
	}
	for _, p := range snap.Pools {
		out[k("workq_pools", "status", string(p.Status))]++
		if p.HeartbeatAge != nil {
			host := ""
			if p.Heartbeat != nil {
				host = p.Heartbeat.Host
			}
			out[k("workq_pool_heartbeat_age_seconds", "pool", p.ID, "host", host)] = p.HeartbeatAge.Seconds()
		}
		var n int64
		for _, v := range p.InProgress {
			n += v
		}
		out[k("workq_pool_in_progress", "pool", p.ID)] = float64(n)
	}
	b := func(x bool) float64 {
		if x {
			return 1
		}
		return 0
	}
	for _, j := range snap.JobTypes {
		out[k("workq_job_queued", "job", j.Name)] = float64(j.Queued)
		if j.Latency != nil {
			out[k("workq_job_latency_seconds", "job", j.Name)] = j.Latency.Seconds()
		} else if j.Queued == 0 {
			out[k("workq_job_latency_seconds", "job", j.Name)] = 0
		}
		out[k("workq_job_in_progress", "job", j.Name)] = float64(j.InProgress)
		out[k("workq_job_lock", "job", j.Name)] = float64(j.Lock)
		out[k("workq_job_lock_info_held", "job", j.Name)] = float64(j.LockInfoTotal)
		out[k("workq_job_max_concurrency", "job", j.Name)] = float64(j.MaxConcurrency)
		out[k("workq_job_paused", "job", j.Name)] = b(j.Paused)
		out[k("workq_job_drift", "job", j.Name)] = b(j.Drift)
	}
	return out
}

// Diff lists the differences between two sets of series, one per line; ""
// when they are equal. Values of metrics named *_seconds{...} may differ by
// up to tol: ages measured by two reads at different times.
func Diff(got, want Series, tol float64) string {
	var lines []string
	for k, w := range want {
		g, ok := got[k]
		name, _, _ := strings.Cut(k, "{")
		switch {
		case !ok:
			lines = append(lines, fmt.Sprintf("missing %s (want %v)", k, w))
		case strings.HasSuffix(name, "_seconds"):
			if g-w > tol || w-g > tol {
				lines = append(lines, fmt.Sprintf("%s = %v, want %v (within %v)", k, g, w, tol))
			}
		case g != w:
			lines = append(lines, fmt.Sprintf("%s = %v, want %v", k, g, w))
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			lines = append(lines, fmt.Sprintf("unexpected %s = %v", k, g))
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// Delta is after minus before, keeping the commands whose count grew.
func Delta(before, after map[string]int64) map[string]int64 {
	out := map[string]int64{}
	for k, v := range after {
		if d := v - before[k]; d > 0 {
			out[k] = d
		}
	}
	return out
}

package exporter

// The job health series: each job type's problems by kind, its failure
// rate over the window and the baseline's (model.AssessJobs). A type's
// wait is workq_job_latency_seconds.

import (
	"sort"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/workq-tui/workq-tui/model"
)

type jobHealthDescs struct {
	problem, failRate, baseRate *prometheus.Desc
}

func newJobHealthDescs(d func(name, help string, extra ...string) *prometheus.Desc) jobHealthDescs {
	return jobHealthDescs{
		problem:  d("workq_job_problem", "1 when the job type has the job health problem kind (failing, backlog, starving, stuck, paused_backlog, unserved), else 0; every kind of every job type present.", "job", "kind"),
		failRate: d("workq_job_failures_per_minute", "Failures (deaths and failures now retrying) of the job type a minute over the exporter's --fail-window.", "job"),
		baseRate: d("workq_job_baseline_failures_per_minute", "Failures of the job type a minute over the --fail-baseline before the window.", "job"),
	}
}

func (h jobHealthDescs) all() []*prometheus.Desc {
	return []*prometheus.Desc{h.problem, h.failRate, h.baseRate}
}

// emit sends the job health series of a read that judged it.
func (h jobHealthDescs) emit(s *series, snap *model.Snapshot) {
	jh := snap.Jobs
	if jh == nil {
		return
	}
	gauge := prometheus.GaugeValue
	has := map[[2]string]bool{}
	for _, p := range jh.Problems {
		has[[2]string{p.Job, p.Kind}] = true
	}
	jobs := map[string]bool{}
	for _, jt := range snap.JobTypes {
		jobs[jt.Name] = true
	}
	for job := range jh.Rates {
		jobs[job] = true
	}
	for _, p := range jh.Problems {
		jobs[p.Job] = true
	}
	names := make([]string, 0, len(jobs))
	for n := range jobs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, job := range names {
		l := label(job)
		for _, k := range model.JobHealthKinds {
			s.send(h.problem, gauge, boolValue(has[[2]string{job, k}]), l, k)
		}
		r := jh.Rates[job]
		s.send(h.failRate, gauge, r.FailRate, l)
		s.send(h.baseRate, gauge, r.BaseRate, l)
	}
}

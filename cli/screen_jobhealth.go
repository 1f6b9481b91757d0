package cli

// The screen's job health: every poll followed by the tracker's read of
// what changed (the new failures, the workers of saturated pools), so that
// the snapshot the screen shows carries its job health, judged once per
// poll; the explanations judge with the same tracker.

import (
	"context"
	"time"

	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
	"github.com/workq-tui/workq-tui/tui"
)

// healthPoller is a poll followed by the job health's reads.
type healthPoller struct {
	tui.Poller
	client    *redisq.Client
	tracker   *redisq.HealthTracker
	longAfter time.Duration
}

// Poll polls, then judges the job health of the snapshot. A failed read
// of the job health keeps the poll and says so in a warning.
func (p healthPoller) Poll(ctx context.Context, req redisq.PollRequest) (*model.Snapshot, error) {
	snap, err := p.Poller.Poll(ctx, req)
	if err != nil || snap == nil {
		return snap, err
	}
	if p.longAfter > 0 && snap.LongAfter != p.longAfter {
		// The screen's cut-off, so that the screen need not list the
		// findings again (and the stuck workers are judged by it).
		snap.LongAfter = p.longAfter
		snap.Findings = model.Findings(snap)
	}
	if err := p.client.AssessJobs(ctx, p.tracker, snap); err != nil {
		snap.Warnings = append(snap.Warnings, "job health not read: "+err.Error())
		snap.Findings = append(snap.Findings, model.Finding{Kind: model.FindingWarning, Subject: snap.Namespace, Detail: "job health not read: " + err.Error()})
	}
	return snap, nil
}

// withJobHealth is the reader r with its polls and explanations judging
// job health with tracker.
func withJobHealth(r tui.Reads, client *redisq.Client, tracker *redisq.HealthTracker, longAfter time.Duration) tui.Reads {
	r.Poll = healthPoller{Poller: r.Poll, client: client, tracker: tracker, longAfter: longAfter}
	if x, ok := r.Explain.(screenExplainer); ok {
		x.tracker = tracker
		r.Explain = x
	}
	return r
}

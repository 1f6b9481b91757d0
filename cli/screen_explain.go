package cli

import (
	"context"
	"strings"
	"time"

	"github.com/gomodule/redigo/redis"
	"github.com/spf13/pflag"

	"github.com/workq-tui/workq-tui/internal/shellword"
	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
	"github.com/workq-tui/workq-tui/tui"
)

// screenExplainer is the screen's e: one ReadExplain and model.Explain or
// model.ExplainPool on it, as `workq-tui explain` does; fix commands carry
// the screen's connection flags.
type screenExplainer struct {
	client *redisq.Client
	// prefix is "workq-tui" and the target's connection flags.
	prefix string
	// longAfter marks the long-running jobs of a saturated type (0: the
	// default), as explain's --long-after.
	longAfter time.Duration
	// tracker judges the job health (nil: not judged).
	tracker *redisq.HealthTracker
}

var _ tui.Explainer = screenExplainer{}

func (s screenExplainer) read(ctx context.Context, jobs []string) (*redisq.ExplainRead, error) {
	rd, err := s.client.ReadExplain(ctx, jobs, redisq.DefaultScanCount)
	if err != nil {
		return nil, err
	}
	if s.longAfter > 0 {
		rd.Snap.LongAfter = s.longAfter
	}
	if s.tracker != nil {
		// Beside the polls: an explanation adds no sample of the queues.
		if err := s.client.AssessJobsAside(ctx, s.tracker, rd.Snap); err != nil {
			return nil, err
		}
	}
	return rd, nil
}

func (s screenExplainer) ExplainJob(ctx context.Context, job string) (model.Explanation, error) {
	rd, err := s.read(ctx, []string{job})
	if err != nil {
		return model.Explanation{}, err
	}
	return explainJob(rd, job), nil
}

func (s screenExplainer) ExplainPool(ctx context.Context, id string) (model.PoolExplanation, error) {
	rd, err := s.read(ctx, nil)
	if err != nil {
		return model.PoolExplanation{}, err
	}
	return model.ExplainPool(rd.Snap, id), nil
}

func (s screenExplainer) FixCommand(fix []string) string { return fixLine(s.prefix, fix) }

// screenTimeline is the screen's Timeline view: redisq.ReadTimeline, as
// `workq-tui timeline` reads it, on a connection of its own.
type screenTimeline struct {
	dial      func(ctx context.Context) (redis.Conn, error)
	namespace string
	deadAfter time.Duration
}

var _ tui.TimelineReader = screenTimeline{}

func (s screenTimeline) Timeline(ctx context.Context, since, bucket time.Duration) (*model.Timeline, error) {
	conn, err := s.dial(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	return redisq.ReadTimeline(ctx, conn, s.namespace, s.deadAfter, since, bucket, nil)
}

// screenFixPrefix is screenPrefixWords as one line.
func screenFixPrefix(t *target) string { return strings.Join(screenPrefixWords(t), " ") }

// screenCommands is the screen's command lines: the prefix in force
// (screenPrefixWords), then the command's words, each shell-quoted.
type screenCommands struct{ prefix []string }

var _ tui.CommandLiner = screenCommands{}

func (c screenCommands) CommandWords(words []string) []string {
	out := append([]string(nil), c.prefix...)
	for _, w := range words {
		out = append(out, shellword.Quote(w))
	}
	return out
}

// screenPrefixWords is "workq-tui" and the connection flags of target t
// as the command line gave them (explain's own flags left out, as
// explain's fix commands do), as shell words, so that a command the screen
// prints runs against the same Redis and namespace. A flag given once per
// target of a fleet is t's. With --demo the command names the embedded
// Redis (its address once open): pasted in another terminal while the demo
// runs, it acts on the demo's namespace, where --demo would start a demo of
// its own.
func screenPrefixWords(t *target) []string {
	parts := []string{"workq-tui"}
	if t.demo {
		parts = append(parts, "--redis", shellword.Quote(t.redis.Address))
		if t.fs != nil && t.fs.Changed("namespace") {
			parts = append(parts, "--namespace", shellword.Quote(t.namespace))
		}
		return parts
	}
	if t.fs == nil {
		return parts
	}
	own := pflag.NewFlagSet("target", pflag.ContinueOnError)
	(&target{}).addFlags(own)
	t.fs.Visit(func(f *pflag.Flag) {
		if own.Lookup(f.Name) == nil || explainOwnFlag(f.Name) {
			return
		}
		switch f.Name {
		case "target":
			if t.from != nil {
				parts = append(parts, "--target", shellword.Quote(t.from.Name))
			}
			return
		case "redis":
			parts = append(parts, "--redis", shellword.Quote(t.redis.Address))
			return
		case "namespace":
			parts = append(parts, "--namespace", shellword.Quote(t.namespace))
			return
		}
		if f.Value.Type() == "bool" {
			if f.Value.String() == "true" {
				parts = append(parts, "--"+f.Name)
			}
			return
		}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				parts = append(parts, "--"+f.Name, shellword.Quote(v))
			}
			return
		}
		parts = append(parts, "--"+f.Name, shellword.Quote(f.Value.String()))
	})
	return parts
}

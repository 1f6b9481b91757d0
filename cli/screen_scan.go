package cli

import (
	"context"

	"github.com/gomodule/redigo/redis"

	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/redisq"
	"github.com/workq-tui/workq-tui/tui"
)

// screenScanner runs the screen's orphan scans: each on a connection dialled
// for it alone (not the polls' pool), so a scan never waits behind a poll
// nor a poll behind it. The screen makes one Step per command.
type screenScanner struct {
	dial  func(ctx context.Context) (redis.Conn, error)
	keys  redisq.Keys
	count int
}

// ScreenScanner is the orphan scanner the screen runs with
// (the screen's tui.Reads.Scan): each scan of namespace on a connection of
// its own from dial, count keys asked for per SCAN call.
func ScreenScanner(dial func(ctx context.Context) (redis.Conn, error), namespace string, count int) tui.OrphanScanner {
	return screenScanner{dial: dial, keys: redisq.NewKeys(namespace), count: count}
}

func (s screenScanner) StartScan(ctx context.Context) (tui.OrphanScan, error) {
	c, err := s.dial(ctx)
	if err != nil {
		return nil, err
	}
	return &screenScan{c: c, s: redisq.NewOrphanScan(s.keys, s.count)}, nil
}

// screenScan is one scan and its connection.
type screenScan struct {
	c redis.Conn
	s *redisq.OrphanScan
}

func (s *screenScan) Step(ctx context.Context) (tui.ScanProgress, error) {
	_, err := s.s.Step(ctx, s.c)
	p := s.s.Progress()
	return tui.ScanProgress{Steps: p.Calls, Keys: p.Candidates, Done: p.Done}, err
}

func (s *screenScan) Finish(ctx context.Context) ([]model.InProgressList, error) {
	res, err := s.s.Finish(ctx, s.c)
	return res.Orphans, err
}

func (s *screenScan) Close() error { return s.c.Close() }

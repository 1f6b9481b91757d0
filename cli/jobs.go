package cli

// This file owns the jobs command: its flags, its help and the grammar of
// its operands (which set or queue, which action, which jobs). The listing
// is in jobs_list.go, the writes in jobs_write.go.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/workq-tui/workq-tui/model"
	"github.com/workq-tui/workq-tui/reaper"
)

func jobsCommand() command {
	return command{
		name:    "jobs",
		args:    "SET [requeue|delete (ID...|--all) | edit|duplicate ID] | queue JOB [delete ID... | delete|park --where QUERY]",
		summary: "list, requeue or delete retry, scheduled and dead jobs",
		help: `List the jobs of a job set (SET is retry, scheduled or dead), count them by
job type and error, requeue or delete them, or delete a job from a queue.

  jobs SET [--where QUERY] [--job NAME] [--error TEXT] [--limit N]
         [--offset N] [--json]
      A page in the set's order: retry and scheduled soonest first, dead
      most recent death first. A filter walks the set in steps, never
      loading it at once; since:/until: read only that range of scores. A
      member that is not JSON is listed raw.
  jobs SET --summary [--where QUERY] [--job NAME] [--error TEXT] [--json]
      Count the set's jobs by job type and by error (numbers and hex IDs
      folded), scanning the whole set (or the time range); progress on
      stderr.
  jobs SET requeue (ID... | --all [--where QUERY] [--job NAME]
         [--error TEXT]) [--force] [--rate N]
      Push jobs onto their queues with t = now (the back of the line). Dead
      jobs lose fails, err and failed_at, as gocraft/work's RetryDeadJob
      does; retry and scheduled jobs keep them ("run now"). Names not in
      known_jobs are refused; names no live pool serves need --force.
      --rate N pushes at most N jobs a second; ctrl-c stops after the call
      in flight and says what moved and what is left.
  jobs SET delete (ID... | --all [--where QUERY] [--job NAME] [--error TEXT])
      Delete jobs, with the unique key of a unique job (for retry and dead
      only if the key still names that job).
  jobs SET edit ID [--args FILE|-] [--requeue] [--wide]
      Open the job's args as indented JSON in $VISUAL, $EDITOR or vi (or
      read them from FILE, - for stdin), check they are a JSON object, show
      a diff, and replace the member only while its bytes are unchanged:
      the same score, and every byte but the args kept. --requeue moves the
      edited job onto its queue in the same call (t = now; a dead job loses
      fails, err and failed_at). A unique job's key is built from its args:
      the plan says what happens to it (docs/jobs.md).
  jobs SET duplicate ID
      Push a copy of the job onto its queue with a new id, t = now and no
      fails, err or failed_at; the job stays in the set. A unique job whose
      key is held cannot be duplicated.
  jobs queue JOB [--where QUERY] [--limit N] [--offset N] [--json]
      List a page of the queue of job type JOB in the order its jobs will
      run (the next one first), with enqueue time, id and arguments.
  jobs queue JOB delete ID... [--force]
      Remove a job from the queue of job type JOB (every copy of its exact
      bytes), with its unique key. An ID found more than once in the queue
      with different bytes needs --force.
  jobs queue JOB delete --where QUERY [--rate N]
  jobs queue JOB park --where QUERY [--rate N]
      Take every job of the queue that QUERY matches out of it, in run
      order and in batches, each checked by its exact bytes in the script
      that takes it: delete them (with their unique keys), or park them in
      the dead set with err "parked by workq-tui: ..." and failed_at now,
      where they can be read and requeued later. The rest keep their order.
      undo puts each back behind the job that was ahead of it, or at the
      queue's head where the queue has moved past it.

QUERY is terms that must all match, such as
  'job:charge_card err:"gateway timeout" since:03:10 until:03:40'
  'args.order_id:ord_289316'   'err~^dial tcp' 'fails>=3 since:2h'
(see docs/jobs.md). --job NAME and --error TEXT are job:NAME and err:TEXT.

A job is given as ID (every member of the set with that id) or ID@SCORE
(only at that score, as gocraft/work's Client addresses it). Every write
shows its plan first, then asks (or takes --yes); --dry-run only shows the
plan. Each member is re-checked inside the script that moves it: one that
left or moved meanwhile is reported, not touched. Every executed write
appends one line to the audit log.`,
		flags: func(fs *pflag.FlagSet) runner {
			c := &jobsCmd{fs: fs}
			c.target.addFlags(fs)
			fs.StringVar(&c.job, "job", "", "only jobs of this job `NAME` (listing, summary, --all)")
			fs.StringVar(&c.errText, "error", "", "only jobs whose err contains `TEXT`, ignoring case (listing, summary, --all)")
			fs.StringVar(&c.where, "where", "", "only jobs matching `QUERY` (listing, summary, --all, queue listing)")
			fs.IntVar(&c.rate, "rate", 0, "requeue at most `N` jobs a second (requeue --all)")
			fs.IntVar(&c.limit, "limit", 20, "jobs per page (listing)")
			fs.IntVar(&c.offset, "offset", 0, "jobs skipped before the page (listing)")
			fs.BoolVar(&c.json, "json", false, "print JSON (listing, summary)")
			fs.BoolVar(&c.wide, "wide", false, "print lines whole: errors, the args and error examples (listing, summary), the plans of writes; the text fits 80 columns without it")
			fs.BoolVar(&c.summary, "summary", false, "count the jobs by job type and by error instead of listing them")
			fs.BoolVar(&c.all, "all", false, "every job of the set (of --job NAME when given) (requeue, delete)")
			fs.BoolVar(&c.force, "force", false, "requeue jobs no live pool serves; delete an ID found with different bytes in a queue")
			fs.StringVar(&c.argsFile, "args", "", "the edited args from `FILE` (- for stdin) instead of an editor (edit)")
			fs.BoolVar(&c.requeue, "requeue", false, "move the edited job onto its queue in the same call (edit)")
			c.write.addFlags(fs)
			addBatch(fs, &c.batch)
			c.audit.addFlags(fs)
			return c
		},
	}
}

type jobsCmd struct {
	target
	fs      *pflag.FlagSet
	job     string
	errText string
	where   string
	rate    int
	query   *model.Query
	limit   int
	offset  int
	json    bool
	wide    bool
	summary bool
	all     bool
	force   bool
	// argsFile and requeue are edit's --args and --requeue.
	argsFile string
	requeue  bool
	write    writeFlags
	batch    int
	audit    auditFlag
}

// maxJobsLimit bounds --limit: a page is one ZRANGE, never the whole set.
const maxJobsLimit = 10000

// jobsOp is a parsed jobs command line.
type jobsOp struct {
	set    model.SetName // "" for a queue
	queue  string
	action reaper.JobsAction // "" for the listing
	// drain is a queue's delete or park by query; park the park.
	drain, park bool
	// edit is "edit" or "duplicate" for those forms.
	edit  string
	refs  []reaper.JobRef
	title string // "jobs dead requeue", for errors and the audit log
}

// Which flags each form takes, besides the connection flags.
var (
	jobsListFlags  = []string{"job", "error", "where", "limit", "offset", "json", "summary", "wide"}
	jobsWriteFlags = []string{"dry-run", "yes", "batch", "audit-log", "wide"}
)

func (c *jobsCmd) run(ctx context.Context, e env, args []string) error {
	if err := c.check(e); err != nil {
		return err
	}
	op, err := parseJobsArgs(args)
	if err != nil {
		return err
	}
	if err := c.checkFlags(op); err != nil {
		return err
	}
	if c.query, err = c.parseWhere(e, c.where, c.errText); err != nil {
		return err
	}
	if op.drain {
		return c.drain(ctx, e, op)
	}
	if op.edit != "" {
		return c.editJob(ctx, e, op)
	}
	if op.action == "" && op.queue != "" {
		return listQueue(ctx, e, &c.target, op.queue, queueListFlags{limit: c.limit, offset: c.offset, json: c.json, query: c.query})
	}
	if op.action == "" {
		return c.list(ctx, e, op)
	}
	return c.act(ctx, e, op)
}

// parseJobsArgs reads the operands: SET, SET ACTION IDS..., queue JOB
// delete IDS...
func parseJobsArgs(args []string) (jobsOp, error) {
	var op jobsOp
	if len(args) == 0 {
		return op, usageErrorf("jobs needs a job set (retry, scheduled or dead) or queue JOB")
	}
	rest := args[1:]
	if args[0] == "queue" {
		if len(rest) == 0 || rest[0] == "" {
			return op, usageErrorf("jobs queue needs a job type: jobs queue JOB, or jobs queue JOB delete ID...")
		}
		op.queue = rest[0]
		if len(rest) == 1 {
			op.title = "jobs queue"
			return op, nil // the listing
		}
		if rest[1] != "delete" && rest[1] != "park" {
			return op, usageErrorf("jobs queue %s takes nothing, delete ID..., or delete or park with --where QUERY", strconv.Quote(rest[0]))
		}
		op.action = reaper.JobsDelete
		op.title = "jobs queue " + rest[1]
		for _, id := range rest[2:] {
			if id == "" {
				return op, usageErrorf("empty job ID")
			}
			op.refs = append(op.refs, reaper.JobRef{ID: id})
		}
		if rest[1] == "park" {
			if len(op.refs) > 0 {
				return op, usageErrorf("jobs queue %s park takes --where QUERY, not job IDs", strconv.Quote(op.queue))
			}
			op.park = true
		}
		op.drain = len(op.refs) == 0
		return op, nil
	}
	set, err := model.ParseSetName(args[0])
	if err != nil {
		return op, usageErrorf("%v (or queue JOB)", err)
	}
	op.set = set
	op.title = "jobs " + string(set)
	if len(rest) == 0 {
		return op, nil
	}
	switch rest[0] {
	case "requeue":
		op.action = reaper.JobsRequeue
	case "delete":
		op.action = reaper.JobsDelete
	case "edit", "duplicate":
		op.edit = rest[0]
		op.action = reaper.JobsAction(rest[0])
		op.title += " " + rest[0]
		if len(rest) != 2 {
			return op, usageErrorf("jobs %s %s takes one job: ID or ID@SCORE", set, rest[0])
		}
		ref, err := parseJobRef(rest[1])
		if err != nil {
			return op, err
		}
		op.refs = []reaper.JobRef{ref}
		return op, nil
	default:
		return op, usageErrorf("unknown action %q for jobs %s: want requeue, delete, edit or duplicate", rest[0], set)
	}
	op.title += " " + rest[0]
	for _, a := range rest[1:] {
		ref, err := parseJobRef(a)
		if err != nil {
			return op, err
		}
		op.refs = append(op.refs, ref)
	}
	return op, nil
}

// parseJobRef reads ID or ID@SCORE. The score is what follows the last @
// when that is a number; otherwise the whole text is the id (a periodic
// job's id may hold "@every 5m").
func parseJobRef(s string) (reaper.JobRef, error) {
	if s == "" {
		return reaper.JobRef{}, usageErrorf("empty job ID")
	}
	i := strings.LastIndexByte(s, '@')
	if i < 0 {
		return reaper.JobRef{ID: s}, nil
	}
	id, score := s[:i], s[i+1:]
	f, err := strconv.ParseFloat(score, 64)
	if err != nil {
		if looksNumeric(score) {
			return reaper.JobRef{}, usageErrorf("job %q: score %q is not a number", s, score)
		}
		return reaper.JobRef{ID: s}, nil
	}
	if math.IsNaN(f) {
		return reaper.JobRef{}, usageErrorf("job %q: score %q is not a number", s, score)
	}
	if id == "" {
		return reaper.JobRef{}, usageErrorf("job %q: empty job ID before the score", s)
	}
	return reaper.JobRef{ID: id, Score: score}, nil
}

// looksNumeric reports text that was meant as a score: digits with signs,
// points or exponents, as in 1700000000, -1.5 or 1e9x.
func looksNumeric(s string) bool {
	if s == "" {
		return true
	}
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r == '.' || r == '-' || r == '+' || r == 'e' || r == 'E') {
			return false
		}
	}
	return true
}

// checkFlags refuses flags that do not apply to the form given, and bad
// values, before anything is sent.
func (c *jobsCmd) checkFlags(op jobsOp) error {
	allowed := map[string]bool{}
	switch {
	case op.action == "" && op.queue != "":
		allowed["limit"], allowed["offset"], allowed["json"], allowed["where"] = true, true, true, true
	case op.action == "":
		for _, f := range jobsListFlags {
			allowed[f] = true
		}
	case op.drain:
		allowed["where"], allowed["rate"] = true, true
	case op.edit == "edit":
		allowed["args"], allowed["requeue"], allowed["wide"] = true, true, true
	case op.edit != "":
		allowed["wide"] = true
	case op.set == "":
		allowed["force"] = true
	default:
		allowed["job"], allowed["all"], allowed["error"], allowed["where"] = true, true, true, true
		if op.action == reaper.JobsRequeue {
			allowed["force"], allowed["rate"] = true, true
		}
	}
	if op.action != "" {
		for _, f := range jobsWriteFlags {
			allowed[f] = true
		}
	}
	var foreign []string
	for _, f := range append(append(append([]string{}, jobsListFlags...), jobsWriteFlags...), "all", "force", "rate", "args", "requeue") {
		if c.fs.Changed(f) && !allowed[f] && !contains(foreign, "--"+f) {
			foreign = append(foreign, "--"+f)
		}
	}
	if len(foreign) > 0 {
		return usageErrorf("%s does not apply to %s", strings.Join(foreign, ", "), op.title)
	}
	var errs []error
	if op.action == "" {
		switch {
		case c.limit < 1 || c.limit > maxJobsLimit:
			errs = append(errs, usageErrorf("--limit must be between 1 and %d", maxJobsLimit))
		case c.offset < 0:
			errs = append(errs, usageErrorf("--offset must not be negative"))
		case c.summary && (c.fs.Changed("limit") || c.fs.Changed("offset")):
			errs = append(errs, usageErrorf("--summary counts the whole set: --limit and --offset do not apply"))
		}
	} else {
		errs = append(errs, checkBatch(c.batch))
		switch {
		case op.drain && strings.TrimSpace(c.where) == "" && c.fs.Changed("where"):
			errs = append(errs, usageErrorf("--where must not be empty: %s takes only the jobs a query matches", op.title))
		case op.drain && c.where == "" && !op.park:
			errs = append(errs, usageErrorf("%s needs job IDs or --where QUERY", op.title))
		case op.drain && c.where == "":
			errs = append(errs, usageErrorf("%s needs --where QUERY", op.title))
		case op.drain && c.fs.Changed("rate") && c.rate < 1:
			errs = append(errs, usageErrorf("--rate takes a number of jobs a second of 1 or more"))
		}
		if op.set != "" && op.edit == "" {
			switch {
			case c.all && len(op.refs) > 0:
				errs = append(errs, usageErrorf("%s takes job IDs or --all, not both", op.title))
			case !c.all && len(op.refs) == 0:
				errs = append(errs, usageErrorf("%s needs job IDs (ID or ID@SCORE) or --all", op.title))
			case (c.job != "" || c.errText != "" || c.where != "") && !c.all:
				errs = append(errs, usageErrorf("--job, --error and --where go with --all"))
			case c.fs.Changed("rate") && (c.rate < 1 || !c.all):
				errs = append(errs, usageErrorf("--rate takes a number of jobs a second of 1 or more, with --all"))
			case c.fs.Changed("job") && c.job == "":
				errs = append(errs, usageErrorf("--job must not be empty"))
			}
		}
	}
	return errors.Join(errs...)
}

// jobsPlural is "1 job", "2 jobs".
func jobsPlural(n int64, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

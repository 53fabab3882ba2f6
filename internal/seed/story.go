package seed

import (
	"context"
	"encoding/hex"
	"fmt"
	"math/rand"
	"strings"
	"time"

	"github.com/claude-mem/claude-mem-go/store"
	"github.com/claude-mem/claude-mem-go/vocab"
)

// Story stores a coding
// project's history of n observations in one transaction, ending at end: sessions on
// working days of loc (a few a day, 9:00 to 18:00), each with prompts, 2 to 40
// observations and a summary, and now and then a finding recorded again in another spelling
// (a near-duplicate). The same arguments give the same rows; ids grow with time.
func Story(ctx context.Context, db *store.DB, project string, n int, end time.Time, loc *time.Location) error {
	if n < 0 || end.IsZero() || loc == nil {
		return fmt.Errorf("seed: story of n %d, end %v, zone %v: %w", n, end, loc, store.ErrInvalidArgument)
	}
	r := rand.New(rand.NewSource(23))
	// Plan the sessions backwards from end, then write them oldest first.
	type plan struct {
		id    string
		start time.Time
		obs   int
	}
	var plans []plan
	day := time.Date(end.In(loc).Year(), end.In(loc).Month(), end.In(loc).Day(), 0, 0, 0, 0, loc)
	for left := n; left > 0; day = day.AddDate(0, 0, -1) {
		if wd := day.Weekday(); wd == time.Saturday || wd == time.Sunday {
			continue
		}
		at := day.Add(9*time.Hour + time.Duration(r.Intn(60))*time.Minute)
		var today []plan
		for range 1 + r.Intn(4) {
			k := min(left, 2+r.Intn(39))
			if k == 0 || !at.Before(end) {
				break
			}
			today = append(today, plan{start: at, obs: k})
			left -= k
			at = at.Add(time.Duration(k*4+30+r.Intn(90)) * time.Minute)
			if at.Hour() >= 18 {
				break
			}
		}
		for i := len(today) - 1; i >= 0; i-- {
			plans = append(plans, today[i])
		}
	}
	for i := range plans {
		var u [16]byte
		r.Read(u[:])
		h := hex.EncodeToString(u[:])
		plans[i].id = h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
	}
	var recorded [][2]string // type, title of earlier observations: what a near-duplicate repeats
	var b store.ImportBatch
	for i := len(plans) - 1; i >= 0; i-- {
		p := plans[i]
		s := store.Session{ID: p.id, Project: project, Cwd: "/work/" + project, StartedAt: p.start}
		b.Sessions = append(b.Sessions, s)
		task := seedTasks[r.Intn(len(seedTasks))]
		area := seedAreas[r.Intn(len(seedAreas))]
		request := fmt.Sprintf(task, area)
		b.Prompts = append(b.Prompts, store.Prompt{SessionID: s.ID, Project: project, Text: request + "\n\n" + seedPromptDetail, At: p.start.Add(5 * time.Second)})
		at := p.start.Add(time.Minute)
		for range p.obs {
			at = at.Add(time.Duration(1+r.Intn(7)) * time.Minute)
			typ := vocab.ObservationTypes[r.Intn(len(vocab.ObservationTypes))]
			title := fmt.Sprintf(seedFindings[r.Intn(len(seedFindings))], seedAreas[r.Intn(len(seedAreas))], seedParts[r.Intn(len(seedParts))])
			title = strings.ToUpper(title[:1]) + title[1:]
			if len(recorded) > 20 && r.Intn(10) == 0 { // found again, spelled differently
				prev := recorded[len(recorded)-1-r.Intn(20)]
				typ, title = prev[0], strings.ToLower(prev[1])+"."
			}
			recorded = append(recorded, [2]string{typ, title})
			sub := seedDetails[r.Intn(len(seedDetails))]
			if strings.Contains(sub, "%s") {
				sub = fmt.Sprintf(sub, seedParts[r.Intn(len(seedParts))])
			}
			b.Observations = append(b.Observations, store.Observation{SessionID: s.ID, Project: project, Type: typ, Title: title,
				Subtitle: sub, Narrative: "The narrative of " + title + ".", At: at})
		}
		if i == 0 && !at.Before(end) { // the newest session may still be open at end
			continue
		}
		sum := store.Summary{SessionID: s.ID, Project: project, Request: request, Investigated: "Read the " + area + " code and its tests."}
		sum.Learned = fmt.Sprintf("The %s %s %s.", area, seedParts[r.Intn(len(seedParts))], seedLessons[r.Intn(len(seedLessons))])
		sum.Completed = "Done: " + strings.ToLower(request[:1]) + request[1:] + "."
		sum.NextSteps = fmt.Sprintf("Cover the %s %s with a test; then look at %s.", area, seedParts[r.Intn(len(seedParts))], seedAreas[r.Intn(len(seedAreas))])
		sum.At = at.Add(2 * time.Minute)
		b.Summaries = append(b.Summaries, sum)
	}
	return write(ctx, db, b)
}

var (
	seedAreas = []string{"refund", "ledger", "webhook", "invoice", "payout", "currency", "checkout", "dispute",
		"subscription", "tax", "reconciliation", "idempotency", "rate limit", "audit log", "settlement"}
	seedParts = []string{"handler", "migration", "retry loop", "rounding", "cache", "queue consumer", "schema",
		"fixture", "client", "validator", "cron job", "index", "serializer", "feature flag"}
	seedTasks = []string{"Fix the flaky %s test", "Add an API for %s exports", "Refactor the %s module",
		"Find why %s totals drift", "Speed up the %s report", "Make %s retries safe", "Document the %s flow",
		"Upgrade the %s dependencies", "Review the %s pull request", "Investigate the %s outage"}
	seedFindings = []string{"%s %s rounded zero-decimal amounts wrong", "%s %s retried without an idempotency key",
		"%s %s reads the replica and sees stale rows", "Moved the %s %s behind an interface",
		"%s %s now validates the currency code", "Chose append-only storage for the %s %s",
		"%s %s timed out under load", "Split the %s %s into two steps", "%s %s logs the request id",
		"Removed the dead %s %s", "%s %s swallowed a context cancel", "Added a regression test for the %s %s"}
	seedDetails = []string{"amounts kept in minor units", "reversals reference the original entry",
		"the %s holds a lock per account", "covered by a table test", "behind a flag until next week",
		"the %s was the bottleneck", "p95 down from 900 ms to 120 ms", "no schema change needed"}
	seedLessons = []string{"must be idempotent", "runs in the caller's transaction", "is read from the primary only",
		"needs the account lock", "has no test for the zero case"}
)

// seedPromptDetail makes a seeded prompt span lines, as a real one does.
const seedPromptDetail = "It fails about one run in ten on CI; the log is below.\n\n    --- FAIL: TestRefund (0.31s)"
